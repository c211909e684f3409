// Runs last (test files run in name order): every operation the OpenAPI document publishes
// was exercised by the suite with a successful response the contract hook checked
// (test/support/contract-hook.ts logs each checked response).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { coverageLog, loadContract } from "../support/contract.ts";

const fullSuite = process.env.TEST_FULL_SUITE === "1";

test("every operation in openapi/openapi.json answered a 2xx in the suite", { skip: !fullSuite && "only when the whole suite runs (npm test without a filter)" }, () => {
  const log = coverageLog();
  assert.ok(log, "TEST_WORK_DIR is set by test/run.ts");
  const seen = new Set(existsSync(log) ? readFileSync(log, "utf8").split("\n") : []);
  const missing = loadContract()
    .operations.filter((op) => !Object.keys(op.responses).some((status) => /^2/.test(status) && seen.has(`${op.operationId} ${status}`)))
    .map((op) => `${op.operationId} (${op.method} ${op.path})`);
  assert.deepEqual(missing, [], `operations no test exercised with a 2xx response:\n  ${missing.join("\n  ")}`);
});
