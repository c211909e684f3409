// Rate limits across instances: two instances on one PostgreSQL database hold one budget per
// client (the counters are in the database or Redis), so a client cannot double its budget by
// spreading its requests over instances.
import { test } from "node:test";
import assert from "node:assert/strict";
import { freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";

const NO_POLL = { "live.fallback_poll_ms": 3_600_000, "cluster.leader_retry_ms": 100 };

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

for (const store of ["postgres", "redis"] as const)
  test(`two instances on one PostgreSQL database hold one comment_write budget (counters in ${store})`, async () => {
    const database = await freshDatabase("postgres");
    const siteId = uniqueSiteId("shared-rl");
    const sites = { [siteId]: { origins: [TEST_ORIGIN] } };
    // The Redis keys are per client address: a fresh prefix per run is not needed, the address is
    // spoofed through a trusted proxy instead, unique to this run.
    const client = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const overrides = {
      ...NO_POLL,
      "rate_limit.comment_write": 6,
      "server.trusted_proxies": ["loopback"],
      ...(store === "redis" ? { "rate_limit.redis_url": REDIS_URL } : {}),
    };
    const first = await startTestService({ databaseUrl: database.url, sites, worker: false, overrides });
    const second = await startTestService({
      databaseUrl: database.url,
      sites,
      worker: false,
      overrides: { ...overrides, "server.listen_port": 0 },
    });
    try {
      assert.equal(first.services.sharedRateLimits?.kind, store, "the instances share their budgets");
      const path = `/api/v1/sites/${siteId}/pages/p/comments`;
      const statuses: number[] = [];
      // One client (one address), four posts through each instance, interleaved.
      for (let i = 0; i < 4; i++) {
        for (const instance of [first, second]) {
          const res = await fetch(`${instance.url}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", origin: TEST_ORIGIN, "x-forwarded-for": client },
            body: "{}",
          });
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

// A budget of 1000 is leased 10 points at a time (src/cluster/budget-leases.ts): each instance
// spends its lease without asking the store, and the total admitted stays within
// N × (lease − 1) = 18 of the budget (below it here: the instances share one clock).
for (const store of ["postgres", "redis"] as const)
  test(`two instances lease a large comment_write budget from one store, within the documented bound (counters in ${store})`, async () => {
    const database = await freshDatabase("postgres");
    const siteId = uniqueSiteId("leased-rl");
    const sites = { [siteId]: { origins: [TEST_ORIGIN] } };
    const client = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const overrides = {
      ...NO_POLL,
      "rate_limit.comment_write": 1000,
      "server.trusted_proxies": ["loopback"],
      ...(store === "redis" ? { "rate_limit.redis_url": REDIS_URL } : {}),
    };
    const first = await startTestService({ databaseUrl: database.url, sites, worker: false, overrides });
    const second = await startTestService({
      databaseUrl: database.url,
      sites,
      worker: false,
      overrides: { ...overrides, "server.listen_port": 0 },
    });
    try {
      const path = `/api/v1/sites/${siteId}/pages/p/comments`;
      const post = async (instance: typeof first) => {
        const res = await fetch(`${instance.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: TEST_ORIGIN, "x-forwarded-for": client },
          body: "{}",
        });
        await res.body?.cancel();
        return res.status;
      };
      const statuses: number[] = [];
      // 1100 posts in batches of 10 at once (so requests wait on a lease in flight), spread
      // unevenly: three through the first instance for one through the second.
      for (let batch = 0; batch < 110; batch++) {
        statuses.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => post(i % 4 === 3 ? second : first)))));
      }
      const admitted = statuses.filter((status) => status !== 429).length;
      assert.ok(Math.abs(admitted - 1000) <= 2 * 9, `admitted ${admitted} of a budget of 1000`);
      assert.ok(
        statuses.slice(-20).every((status) => status === 429),
        `last statuses: ${statuses.slice(-20).join(", ")}`,
      );
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
