// The structured logger: JSON lines at the configured level, credential-named fields censored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import {
  createLogger,
  isoTimestamp,
  logDestination,
  PLAIN_REQUEST_ID,
  REQUEST_LINES_HELD,
  REQUEST_LINES_WAIT_MS,
  type RequestLine,
  requestLineWriter,
  requestPath,
} from "../../src/app/logger.ts";
import { setTimeout as sleep, setImmediate as turnEnd } from "node:timers/promises";

/** The fields pino is given for a request line: its target's path in place of the target. */
function asLogged(line: RequestLine) {
  const { requestId, method, route, target, status, latencyMs } = line;
  return { requestId, method, route, path: requestPath(target), status, latencyMs };
}

function capture(level: string) {
  const lines: string[] = [];
  return { lines, logger: createLogger(level, { write: (line: string) => void lines.push(line) }) };
}

test("one JSON line per entry, below the level nothing", () => {
  const { lines, logger } = capture("warn");
  logger.info({ route: "x" }, "request");
  logger.warn({ route: "y" }, "trouble");
  assert.equal(lines.length, 1);
  const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(entry.route, "y");
  assert.equal(entry.msg, "trouble");
  assert.equal(entry.level, 40);
  assert.equal(typeof entry.time, "string");
});

test("fields named like credentials are censored, at the top level and one level down", () => {
  const { lines, logger } = capture("info");
  logger.info(
    {
      token: "t0p-s3cret",
      request: { claim_token: "claim-s3cret", authorization: "Bearer op-s3cret", signature: "sig-s3cret" },
    },
    "careless",
  );
  const line = lines.join("");
  for (const secret of ["t0p-s3cret", "claim-s3cret", "op-s3cret", "sig-s3cret"])
    assert.ok(!line.includes(secret), secret);
  assert.match(line, /\[redacted\]/);
});

test("the time field is ISO 8601 to the millisecond, as pino's isoTime writes it", () => {
  const times = [
    0, 7, 61, 999, 1000, 1_764_255_600_001, 1_764_255_600_010, 1_764_255_600_999, 1_764_255_601_000, 1_764_255_659_999,
    4_102_444_799_999,
  ];
  for (const now of times) {
    assert.equal(isoTimestamp(now), `,"time":"${new Date(now).toISOString()}"`, String(now));
    // The second time from the kept prefix.
    assert.equal(isoTimestamp(now), `,"time":"${new Date(now).toISOString()}"`, String(now));
  }
  const { lines, logger } = capture("info");
  const before = Date.now();
  logger.info("now");
  const time = Date.parse((JSON.parse(lines[0]!) as { time: string }).time);
  assert.ok(time >= before && time <= Date.now());
});

/** The lines in `file` once it holds `count` of them, or as they are after `withinMs`. */
async function linesWritten(file: string, count: number, withinMs = 5000): Promise<string[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    if (lines.length >= count || Date.now() >= deadline) return lines;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The `i` field of each line. */
const numbers = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { i: number }).i);

test("the default destination writes a few short lines within its flush interval, not only full blocks", async () => {
  const dir = mkdtempSync(join(tmpdir(), "logger-"));
  const file = join(dir, "service.log");
  const fd = openSync(file, "a");
  const destination = logDestination(fd);
  const logger = createLogger("info", destination);
  for (let i = 0; i < 3; i++) logger.info({ i }, "short");
  try {
    assert.deepEqual(numbers(await linesWritten(file, 3)), [0, 1, 2]);
  } finally {
    destination.end();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the default destination keeps lines whole and in order across blocks, multi-byte text included", async () => {
  const dir = mkdtempSync(join(tmpdir(), "logger-"));
  const file = join(dir, "service.log");
  const destination = logDestination(openSync(file, "a"));
  const logger = createLogger("info", destination);
  // About 20 blocks of 32 KB, each line with characters of two, three and four UTF-8 bytes.
  const count = 5000;
  for (let i = 0; i < count; i++) logger.info({ i, text: `é€👋🏽 ${"x".repeat(i % 200)}` }, "line");
  try {
    const lines = await linesWritten(file, count);
    assert.equal(lines.length, count);
    lines.forEach((line, i) => {
      const entry = JSON.parse(line) as { i: number; text: string };
      assert.equal(entry.i, i);
      assert.equal(entry.text, `é€👋🏽 ${"x".repeat(i % 200)}`);
    });
  } finally {
    destination.end();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("lines held in the default destination's block are written when the process exits", async () => {
  const dir = mkdtempSync(join(tmpdir(), "logger-"));
  const file = join(dir, "service.log");
  try {
    // Three short lines (far below a block), then exit before the flush interval.
    const script = `
      import { openSync } from "node:fs";
      import { createLogger, logDestination, requestLineWriter } from ${JSON.stringify(join(import.meta.dirname, "../../src/app/logger.ts"))};
      const logger = createLogger("info", logDestination(openSync(${JSON.stringify(file)}, "a")));
      const writeLine = requestLineWriter(logger);
      for (let i = 0; i < 3; i++) logger.info({ i }, "before exit");
      // A request line still held.
      writeLine({ requestId: "r", method: "GET", route: "x", target: "/held?sig=s3cret", status: 200, latencyMs: 1 });
      process.exit(0);
    `;
    execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "pipe" });
    const lines = await linesWritten(file, 0, 0);
    assert.deepEqual(numbers(lines.slice(0, 3)), [0, 1, 2]);
    assert.equal(lines.length, 4);
    assert.equal((JSON.parse(lines[3]!) as { path: string }).path, "/held");
    assert.ok(!lines[3]!.includes("s3cret"), "the query is not logged");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a request line is the line pino writes for its target's path, escaping and all", () => {
  const { lines, logger } = capture("info");
  const writeLine = requestLineWriter(logger);
  const targets = [
    "/api/v1/sites/a/pages/b/comments",
    '/x/"quoted"/back\\slash',
    "/control/\u0001\u001f/tab\t",
    "/latin1/\u00e9\u00ff/del\u007f",
    `/long/${"a".repeat(150)}"`,
    "",
    "/media/x?sig=s3cret&exp=1",
    '/q/"quoted"?sig="s3cret"',
    "/q/\u00e9?\u00e9=s3cret",
    "?sig=s3cret",
    "/a??",
  ];
  for (const [i, target] of targets.entries()) {
    const line = {
      requestId: i % 2 ? "b3551462-ff37-4a19-bb27-f4802ab907ee" : "proxy.id:42",
      method: i % 2 ? "QUERY" : "GET",
      route: i % 2 ? "listComments" : "unrouted",
      target,
      status: [200, 0, 404, 500, 202, 304][i % 6]!,
      latencyMs: [1.234, 0, 12, 1e-3, 1234.5, Number.NaN][i % 6]!,
    };
    // The time is the one field that differs between two lines: read from the same second.
    writeLine(line);
    logger.info(asLogged(line), "request");
    const [ours, pinos] = lines.splice(0, 2).map((text) => text.replace(/"time":"[^"]*"/, '"time":""'));
    assert.equal(ours, pinos, target);
    assert.deepEqual(JSON.parse(ours!).path, target.split("?")[0], target);
    assert.ok(!ours!.includes("s3cret"), `${target}: the query is not logged`);
  }
});

test("request lines made into the default destination's ring are the lines pino writes, across blocks", async () => {
  const dir = mkdtempSync(join(tmpdir(), "logger-"));
  const file = join(dir, "service.log");
  const destination = logDestination(openSync(file, "a"));
  const logger = createLogger("info", destination);
  const writeLine = requestLineWriter(logger);
  const paths = [
    "/api/v1/sites/a/pages/b/comments",
    '/x/"q"\\',
    "/b/back\\slash",
    "/c/\u0001\t",
    "/l/\u00e9\u00ff\u007f",
    "/e/\u20ac\ud83d\udc4b\ud800",
    "",
    "/m?sig=s3cret",
  ];
  // Ours, then pino's for the same fields (which first writes ours): about 10 blocks.
  const count = 1200;
  const fields = (i: number) => ({
    requestId: i % 3 ? randomUUID() : `proxy.id:${i}`,
    method: ["GET", "QUERY", "POST", "DELETE"][i % 4]!,
    route: i % 5 ? "listComments" : "unrouted",
    target: `${paths[i % paths.length]}${"p".repeat(i % 97)}`,
    status: [200, 0, 404, 500, 202, 304][i % 6]!,
    latencyMs: [1.234, 0, 12, 1e-3, 1234.5, Number.NaN, i / 7][i % 7]!,
  });
  for (let i = 0; i < count; i++) {
    const line = fields(i);
    writeLine(line);
    logger.info(asLogged(line), "request");
  }
  try {
    const lines = await linesWritten(file, 2 * count);
    assert.equal(lines.length, 2 * count);
    for (let i = 0; i < count; i++) {
      const [ours, pinos] = [lines[2 * i]!, lines[2 * i + 1]!];
      // Same second or not, each time is its own line's.
      assert.equal(ours.replace(/"time":"[^"]*"/, ""), pinos.replace(/"time":"[^"]*"/, ""), `line ${i}`);
      assert.match((JSON.parse(ours) as { time: string }).time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  } finally {
    destination.end();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a request line's time is the ISO 8601 time its request ended, to the millisecond", () => {
  const lines: string[] = [];
  const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
  const writeLine = requestLineWriter(logger);
  const times = [0, 7, 61, 999, 1000, 1_764_255_600_001, 1_764_255_600_010, 1_764_255_659_999, 4_102_444_799_999];
  const realNow = Date.now;
  try {
    for (const now of times) {
      Date.now = () => now;
      writeLine({ requestId: "r", method: "GET", route: "x", target: "/", status: 200, latencyMs: 1 });
      logger.warn("written");
    }
  } finally {
    Date.now = realNow;
  }
  const written = lines.filter((line) => line.includes('"msg":"request"'));
  assert.deepEqual(
    written.map((line) => (JSON.parse(line) as { time: string }).time),
    times.map((now) => new Date(now).toISOString()),
  );
});

test("request ids written as they are: the ids kept hold only characters JSON writes as they are", () => {
  for (let code = 0; code < 0x10000; code++) {
    const char = String.fromCharCode(code);
    if (PLAIN_REQUEST_ID.test(char)) assert.equal(JSON.stringify(char), `"${char}"`, code.toString(16));
  }
  for (let i = 0; i < 100; i++) assert.match(randomUUID(), PLAIN_REQUEST_ID);
  assert.doesNotMatch("a".repeat(65), PLAIN_REQUEST_ID);
});

test("a request line's latency is the number pino writes, whole thousandths or not", () => {
  const { lines, logger } = capture("info");
  const writeLine = requestLineWriter(logger);
  // Latencies as the server takes them (ms to the µs), then fractions and sizes of other kinds.
  const latencies = Array.from({ length: 2000 }, (_, i) => Math.round((i ** 3 % 7919) * 1.7 + i) / 1e3);
  latencies.push(0.001, 0.01, 0.1, 0.12, 1.2, 10, 1000.5, 2147483.647, 2147483.648, 1e9, 1 / 3, 1e-7, 2.0005, -0, -2.5);
  latencies.push(Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE);
  for (const latencyMs of latencies) {
    const line = { requestId: "r", method: "GET", route: "x", target: "/", status: 200, latencyMs };
    writeLine(line);
    logger.info(asLogged(line), "request");
    const [ours, pinos] = lines.splice(0, 2).map((line) => line.replace(/"time":"[^"]*"/, '"time":""'));
    assert.equal(ours, pinos, String(latencyMs));
  }
});

test("request lines are written together once held for a while, and before any later line", async () => {
  const { lines, logger } = capture("info");
  const writeLine = requestLineWriter(logger);
  const request = (target: string) => ({
    requestId: "r",
    method: "GET",
    route: "x",
    target,
    status: 200,
    latencyMs: 1,
  });
  const paths = (text: string) =>
    text
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { path: string }).path);
  writeLine(request("/a"));
  writeLine(request("/b"));
  writeLine(request("/c"));
  await turnEnd();
  assert.equal(lines.length, 0, "held past the turn's end");
  // A timer that expires after the writer's fires after it.
  await sleep(REQUEST_LINES_WAIT_MS + 5);
  assert.equal(lines.length, 1, "one write for the lines held");
  assert.deepEqual(paths(lines[0]!), ["/a", "/b", "/c"]);
  // Another line written while a request line is held comes after it.
  writeLine(request("/d"));
  logger.warn("after /d");
  assert.deepEqual(
    lines
      .slice(1)
      .map((line) => (JSON.parse(line) as { path?: string; msg: string }).path ?? line.includes("after /d")),
    ["/d", true],
  );
  // Each line keeps the time its request ended, not the time it was written.
  const before = Date.now();
  writeLine(request("/e"));
  await sleep(REQUEST_LINES_WAIT_MS + 5);
  const time = Date.parse((JSON.parse(lines.at(-1)!) as { time: string }).time);
  assert.ok(time >= before && time < before + 10, `${time - before} ms after`);
  // A full batch is written at once, without waiting.
  for (let i = 0; i < REQUEST_LINES_HELD; i++) writeLine(request(`/${i}`));
  assert.equal(lines.length, 5);
  assert.equal(paths(lines[4]!).length, REQUEST_LINES_HELD);
  // A line held after a full batch is written when the batch's timer fires.
  writeLine(request("/after-full"));
  await sleep(REQUEST_LINES_WAIT_MS + 5);
  assert.deepEqual(paths(lines[5] ?? ""), ["/after-full"]);
});

test("no request line below the level", () => {
  const { lines, logger } = capture("warn");
  requestLineWriter(logger)({ requestId: "r", method: "GET", route: "x", target: "/", status: 200, latencyMs: 1 });
  assert.deepEqual(lines, []);
});
