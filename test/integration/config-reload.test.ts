// SIGHUP re-reads the configuration file of a running instance (npm start's entry point, a real
// process): the request log goes off and on with log.level, without a restart; a file that does not
// load leaves the instance as it was; a change that needs a restart is named.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { stringify } from "smol-toml";
import { eventually, testConfigDocument } from "../support/harness.ts";
import { kill, startProcess } from "../support/service-process.ts";

test("SIGHUP applies a new log level at once, keeps the instance on a broken file, and names changes that wait for a restart", async () => {
  const work = mkdtempSync(join(tmpdir(), "reload-"));
  const configFile = join(work, "config.toml");
  const document = testConfigDocument({ databaseUrl: `file:${join(work, "comments.db")}`, port: 0 });
  const write = (level: string, extra: Record<string, unknown> = {}) =>
    writeFileSync(configFile, stringify({ ...document, ...extra, log: { level } }));
  write("info");
  let printed = "";
  const child = await startProcess(configFile, ["--no-worker"], (chunk) => (printed += chunk));
  try {
    const url = /listening on (http:\/\/\S+)/.exec(printed)![1]!;
    const lines = () =>
      printed
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    /** The request lines of the request sent with `requestId`. */
    const requestLines = (requestId: string) => lines().filter((l) => l.msg === "request" && l.requestId === requestId);
    const get = async (requestId: string) =>
      (await fetch(`${url}/health/live`, { headers: { "x-request-id": requestId } })).status;
    /** Waits for a line about a re-read of the file that `what` accepts. */
    const reloaded = async (what: (line: Record<string, unknown>) => boolean) =>
      eventually(
        async () =>
          lines()
            .filter((l) => l.event === "configuration-reloaded" || l.event === "configuration-not-reloaded")
            .some(what) || null,
        10_000,
        "the reload's line",
      );

    assert.equal(await get("before"), 200);
    await eventually(async () => requestLines("before").length === 1 || null, 10_000, "a request line at info");

    // Quieter: said before the switch, and then no request line.
    write("warn");
    child.kill("SIGHUP");
    await reloaded((l) => l.logLevel === "warn" && l.level === 30);
    assert.equal(await get("quiet"), 200);
    // Louder again: the line comes after the switch; the quiet request never logged one.
    write("info");
    child.kill("SIGHUP");
    await reloaded((l) => l.logLevel === "info" && l.level === 30);
    assert.equal(await get("after"), 200);
    await eventually(async () => requestLines("after").length === 1 || null, 10_000, "a request line at info again");
    assert.deepEqual(requestLines("quiet"), []);

    // A file that does not load: said, and the instance goes on as it was (logging, serving).
    writeFileSync(configFile, "[log\nlevel = ");
    child.kill("SIGHUP");
    await reloaded(
      (l) => l.event === "configuration-not-reloaded" && l.level === 50 && /invalid TOML/.test(String(l.error)),
    );
    assert.equal(await get("still"), 200);
    await eventually(async () => requestLines("still").length === 1 || null, 10_000, "a request line after a bad file");

    // A change that needs a restart: named, at warn; the instance keeps its database.
    write("info", { database: { url: `file:${join(work, "other.db")}` } });
    child.kill("SIGHUP");
    await reloaded((l) => l.level === 40 && JSON.stringify(l.onRestart) === '["database"]');
    assert.equal(child.exitCode, null);
    assert.equal(await get("last"), 200);
  } finally {
    await kill(child, "SIGTERM");
  }
});
