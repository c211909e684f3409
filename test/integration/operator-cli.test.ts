// npm run operator against a running service: every operator route is a command, the output
// (a table, or the JSON answer with --json) and the exit codes scripts rely on.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { stringify } from "smol-toml";
import { buildRoutes } from "../../src/app/route-table.ts";
import { OPERATOR_EXIT, operatorCommands } from "../../src/app/operator-cli.ts";
import {
  startTestService,
  TEST_ORIGIN,
  testConfigDocument,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { registerSite } from "../support/sites.ts";
import { closedUrl } from "../support/closed-url.ts";

const root = resolve(import.meta.dirname, "../..");

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npm run operator -- …args` with `configFile` (async: the service answers in this process). */
function operator(configFile: string, ...args: string[]): Promise<Run> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/operator.ts", "--config", configFile, ...args], {
      cwd: root,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("close", (status) => resolveRun({ status, stdout, stderr }));
  });
}

function writeConfig(document: Record<string, unknown>): string {
  const file = join(tmpdir(), `operator-${randomBytes(4).toString("hex")}.toml`);
  writeFileSync(file, stringify(document));
  return file;
}

describe("operator CLI", () => {
  const declared = uniqueSiteId("cli");
  const sites = { [declared]: { origins: [TEST_ORIGIN] } };
  let service: TestService;
  let configFile: string;

  before(async () => {
    service = await startTestService({ sites });
    configFile = writeConfig(testConfigDocument({ databaseUrl: service.config.database.url, sites }));
  });

  after(async () => {
    await service?.stop();
  });

  test("help lists a command for every operator route of the route table, and backfill", async () => {
    const run = await operator(configFile, "help");
    assert.equal(run.status, 0, run.stderr);
    const commands = operatorCommands(buildRoutes(() => ({})));
    const operatorRoutes = buildRoutes(() => ({})).filter(
      (r) => r.auth === "operator" && !r.operationId.endsWith("Alternate"),
    );
    assert.equal(commands.length, operatorRoutes.length);
    for (const command of commands)
      assert.match(
        run.stdout,
        new RegExp(
          `^  ${command.name} .*\\n +${command.route.method} ${command.route.path.replace(/[{}]/g, "\\$&")}: `,
          "m",
        ),
      );
    assert.match(run.stdout, /^  list-sites \[--page …\] \[--per_page …\] \[--site_id …\] \[--json-body JSON\]$/m);
    assert.match(run.stdout, /^  revoke-origin <site_id> --origin … \[--json-body JSON\]$/m);
    assert.match(run.stdout, /^  rotate-secret <site_id>$/m, "no body, no --json-body");
    assert.match(run.stdout, /^  backfill \[--site <site_id>\]/m);
  });

  test("a read as a table and as JSON", async () => {
    const all = await operator(configFile, "list-sites");
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, new RegExp(`^${declared} +config `, "m"), "an optional body left out");

    const json = await operator(configFile, "list-sites", "--site_id", declared, "--json");
    assert.equal(json.status, 0, json.stderr);
    const page = JSON.parse(json.stdout);
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0].site_id, declared);
    assert.equal(page.data[0].source, "config");

    const whole = await operator(
      configFile,
      "list-sites",
      "--json-body",
      JSON.stringify({ site_id: declared, per_page: 5 }),
      "--json",
    );
    assert.equal(whole.status, 0, whole.stderr);
    assert.deepEqual(
      JSON.parse(whole.stdout),
      { ...page, meta: { ...page.meta, per_page: 5 } },
      "the whole body as JSON",
    );

    const table = await operator(configFile, "list-sites", `--site_id=${declared}`);
    assert.equal(table.status, 0, table.stderr);
    const [header, row, footer] = table.stdout.trimEnd().split("\n");
    assert.match(header!, /^site_id +source +status +id_generated +verified +verified_origins/);
    assert.match(
      row!,
      new RegExp(`^${declared} +config +active +false +true +\\[\\{"origin":"${TEST_ORIGIN}","source":"config"\\}\\]`),
    );
    assert.equal(footer, "page 1/1, 1 in all");
  });

  test("a write with a body option; one record as field/value lines", async () => {
    const { siteId } = await registerSite(service, uniqueSiteId("cli-api"), [TEST_ORIGIN]);
    const run = await operator(configFile, "revoke-origin", siteId, "--origin", TEST_ORIGIN);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^site_id +${siteId}$`, "m"));
    assert.match(run.stdout, /^verified +false$/m);
    assert.match(run.stdout, /^verified_origins +\[\]$/m);
    assert.equal(await service.services.db.siteOrigin.count({ where: { siteId } }), 0);
  });

  test("exit codes: refusals by status, usage and configuration errors, an unreachable service", async () => {
    const missing = await operator(configFile, "get-config-snippet", uniqueSiteId("nowhere"), "--json");
    assert.equal(missing.status, OPERATOR_EXIT.notFound);
    assert.equal(JSON.parse(missing.stdout).code, "site-not-found", "--json prints the problem");
    assert.match(missing.stderr, /404 site-not-found/);

    const declaredOrigin = await operator(configFile, "revoke-origin", declared, "--origin", TEST_ORIGIN);
    assert.equal(declaredOrigin.status, OPERATOR_EXIT.conflict, declaredOrigin.stderr);
    assert.match(declaredOrigin.stderr, /409 config-declared/);

    const invalid = await operator(configFile, "list-sites", "--per_page", "0");
    assert.equal(invalid.status, OPERATOR_EXIT.invalid, invalid.stderr);
    assert.match(invalid.stderr, /400 validation-error/);

    const wrongToken = testConfigDocument({ databaseUrl: service.config.database.url, sites });
    wrongToken.security.operator_token = "not-the-token";
    const refused = await operator(writeConfig(wrongToken), "list-sites");
    assert.equal(refused.status, OPERATOR_EXIT.forbidden, refused.stderr);

    for (const args of [
      ["no-such-command"],
      ["revoke-origin"],
      ["revoke-origin", declared],
      ["list-sites", "--colour", "red"],
      ["list-sites", "--json-body", "[1]"],
      ["rotate-secret", declared, "--json-body", "{}"],
    ]) {
      const usage = await operator(configFile, ...args);
      assert.equal(usage.status, OPERATOR_EXIT.usage, `${args.join(" ")}: ${usage.stderr}`);
      assert.match(usage.stderr, /^operator: /);
    }
    assert.equal((await operator(join(tmpdir(), "no-such-config.toml"), "list-sites")).status, OPERATOR_EXIT.usage);

    const noSpace = await operator(configFile, "backfill", "--site", uniqueSiteId("nowhere"));
    assert.equal(noSpace.status, 5, `backfill keeps its own exit codes: ${noSpace.stdout}${noSpace.stderr}`);
    assert.match(noSpace.stdout, /has no Space on the homeserver/);
    for (const args of [["--page-size", "0"], ["--sites", "x"], ["x"]])
      assert.equal((await operator(configFile, "backfill", ...args)).status, 2, args.join(" "));

    const down = await operator(configFile, "list-sites", "--service-url", await closedUrl());
    assert.equal(down.status, OPERATOR_EXIT.unreachable, down.stderr);
    assert.match(down.stderr, /cannot be reached/);
  });
});
