// Rate limits across instances: two instances on one PostgreSQL database hold one budget per
// client (the counters are in the database), so a client cannot double its budget by spreading
// its requests over instances.
import { test } from "node:test";
import assert from "node:assert/strict";
import { freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";

const NO_POLL = { "live.fallback_poll_ms": 3_600_000, "cluster.leader_retry_ms": 100 };

test("two instances on one PostgreSQL database hold one comment_write budget", async () => {
  const database = await freshDatabase("postgres");
  const siteId = uniqueSiteId("shared-rl");
  const sites = { [siteId]: { origins: [TEST_ORIGIN] } };
  const overrides = { ...NO_POLL, "rate_limit.comment_write": 6 };
  const first = await startTestService({ databaseUrl: database.url, sites, worker: false, overrides });
  const second = await startTestService({ databaseUrl: database.url, sites, worker: false, overrides: { ...overrides, "server.listen_port": 0 } });
  try {
    assert.ok(first.services.sharedRateLimits, "PostgreSQL instances share their budgets");
    const path = `/api/v1/sites/${siteId}/pages/p/comments`;
    const statuses: number[] = [];
    // One client (one address), four posts through each instance, interleaved.
    for (let i = 0; i < 4; i++) {
      for (const instance of [first, second]) {
        const res = await fetch(`${instance.url}${path}`, { method: "POST", headers: { "content-type": "application/json", origin: TEST_ORIGIN }, body: "{}" });
        statuses.push(res.status);
        await res.body?.cancel();
      }
    }
    const admitted = statuses.filter((status) => status !== 429);
    assert.equal(admitted.length, 6, `statuses: ${statuses.join(", ")}`);
    assert.deepEqual(statuses.slice(6), [429, 429]);
  } finally {
    await second.stop();
    await first.stop();
    await database.drop();
  }
});

test("on SQLite each instance counts alone, in memory", async () => {
  const service = await startTestService({ worker: false, overrides: { "rate_limit.comment_write": 6 } });
  try {
    assert.equal(service.services.sharedRateLimits, null);
  } finally {
    await service.stop();
  }
});
