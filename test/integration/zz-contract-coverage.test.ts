// Runs last (test files run in name order): every operation the OpenAPI document publishes
// was exercised by the suite with a successful response the contract hook checked
// (test/support/contract-hook.ts logs each checked response).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { coverageLog, loadContract } from "../support/contract.ts";
import { apiRoutes } from "../../src/app/api-document.ts";

const fullSuite = process.env.TEST_FULL_SUITE === "1";

test("every operation in openapi/openapi.json answered a 2xx in the suite", {
  skip: !fullSuite && "only when the whole suite runs (npm test without a filter)",
}, () => {
  const log = coverageLog();
  assert.ok(log, "TEST_WORK_DIR is set by test/run.ts");
  const seen = new Set(logLines().map((line) => line.split(" ").slice(0, 2).join(" ")));
  const missing = loadContract()
    .operations.filter(
      (op) => !Object.keys(op.responses).some((status) => /^2/.test(status) && seen.has(`${op.operationId} ${status}`)),
    )
    .map((op) => `${op.operationId} (${op.method} ${op.path})`);
  assert.deepEqual(missing, [], `operations no test exercised with a 2xx response:\n  ${missing.join("\n  ")}`);
});

/**
 * Problem codes every route shares through one mechanism are tested once per mechanism, not
 * per route: rate limits (one limiter per group), body size and media type (the HTTP reader),
 * unexpected failures.
 */
const PER_MECHANISM = new Set([
  // One stage of the write pipeline refuses every visitor write of a banned author or on a closed
  // page (test/integration/moderation.test.ts provokes both).
  "author-banned",
  "page-closed",
  "rate-limited",
  "payload-too-large",
  "unsupported-media-type",
  "internal-error",
  "database-unavailable",
]);

/**
 * Route problems no test can cheaply provoke: what the real test Synapse cannot be made to
 * answer (a permanent refusal of an upload by the visitor's freshly registered user, or of a room
 * upgrade the service's checks admitted; the classification behind them is unit-tested in
 * test/unit/homeserver-failures.test.ts, other routes provoke it for real), and answers only a
 * race gives.
 */
const UNPROVOKED = new Set([
  "uploadMedia 502 homeserver-refused",
  "uploadAvatar 502 homeserver-refused",
  // A room upgrade the homeserver refuses for good once the service's own checks (version, tombstone power) passed.
  ...["upgradePage", "upgradePageAlternate", "operatorUpgradeRoom", "operatorUpgradeRoomAlternate"].map(
    (route) => `${route} 502 homeserver-refused`,
  ),
  // The claim gate refuses a retiring site's token (403 invalid-claim-token) before these owner
  // routes run, so only a retirement landing between that check and the write answers 410; the
  // operator's createWebhook mirror provokes it (test/integration/retirement.test.ts).
  "createWebhook 410 site-retired",
  "updateSiteSettings 410 site-retired",
]);

test("every problem code a route declares was answered by that route in the suite", {
  skip: !fullSuite && "only when the whole suite runs (npm test without a filter)",
}, () => {
  const seen = new Set(
    logLines().map((line) => {
      const [op, status, code] = line.split(" ");
      return `${op} ${status} ${code}`;
    }),
  );
  const missing = apiRoutes.flatMap((route) =>
    Object.entries(route.problems).flatMap(([status, codes]) =>
      codes
        .map((code) => `${route.operationId} ${status} ${code}`)
        .filter((key, i) => !PER_MECHANISM.has(codes[i]!) && !UNPROVOKED.has(key) && !seen.has(key)),
    ),
  );
  assert.deepEqual(missing, [], `route problem codes no test provoked:\n  ${missing.join("\n  ")}`);
});

function logLines(): string[] {
  const log = coverageLog();
  return log && existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
}
