// The structured logger: JSON lines at the configured level, credential-named fields censored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "../../src/app/logger.ts";

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
