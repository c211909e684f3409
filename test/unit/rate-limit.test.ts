import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_KEY_CAPACITY, FixedWindowLimiter, TokenBucketLimiter } from "../../src/security/rate-limit.ts";
import { isRateLimited, preAuthBudgets } from "../../src/rest/rate-limits.ts";
import { apiRoutes } from "../../src/app/api-document.ts";
import { buildLimiters, type RateLimitName } from "../../src/config/limits.ts";
import type { Config } from "../../src/config/config.ts";

const T0 = 1_700_000_000_000;

describe("FixedWindowLimiter", () => {
  test("allows `limit` requests per window, then refuses", () => {
    const l = new FixedWindowLimiter({ limit: 3, windowSeconds: 60 });
    assert.deepEqual(
      [l.take("a", T0), l.take("a", T0 + 1), l.take("a", T0 + 2), l.take("a", T0 + 3)],
      [true, true, true, false],
    );
    assert.equal(l.take("a", T0 + 59_999), false);
  });

  test("a new window resets the count", () => {
    const l = new FixedWindowLimiter({ limit: 2, windowSeconds: 60 });
    assert.equal(l.take("a", T0), true);
    assert.equal(l.take("a", T0), true);
    assert.equal(l.take("a", T0), false);
    assert.equal(l.take("a", T0 + 60_000), true);
    assert.equal(l.take("a", T0 + 60_001), true);
    assert.equal(l.take("a", T0 + 60_002), false);
  });

  test("keys are independent", () => {
    const l = new FixedWindowLimiter({ limit: 1, windowSeconds: 3600 });
    assert.equal(l.take("198.51.100.1", T0), true);
    assert.equal(l.take("198.51.100.1", T0), false);
    assert.equal(l.take("198.51.100.2", T0), true);
    assert.equal(l.take("198.51.100.2", T0), false);
  });

  test("retryAfterSeconds is the window (a constant, as the API documents)", () => {
    assert.equal(new FixedWindowLimiter({ limit: 5, windowSeconds: 3600 }).retryAfterSeconds, 3600);
    assert.equal(new FixedWindowLimiter({ limit: 5, windowSeconds: 60 }).retryAfterSeconds, 60);
  });
});

describe("TokenBucketLimiter", () => {
  test("allows a burst, then refills one token per perHour-th of an hour", () => {
    const l = new TokenBucketLimiter(3600, 3); // one token per second
    assert.deepEqual([l.take("a", T0), l.take("a", T0), l.take("a", T0), l.take("a", T0)], [true, true, true, false]);
    assert.equal(l.take("a", T0 + 500), false);
    assert.equal(l.take("a", T0 + 1000), true);
    assert.equal(l.take("a", T0 + 1000), false);
  });

  test("refill is capped at the burst size", () => {
    const l = new TokenBucketLimiter(3600, 2);
    assert.equal(l.take("a", T0), true);
    assert.equal(l.take("a", T0), true);
    const later = T0 + 3_600_000;
    assert.deepEqual([l.take("a", later), l.take("a", later), l.take("a", later)], [true, true, false]);
  });

  test("keys are independent", () => {
    const l = new TokenBucketLimiter(1, 1);
    assert.equal(l.take("a", T0), true);
    assert.equal(l.take("a", T0), false);
    assert.equal(l.take("b", T0), true);
  });

  test("retryAfterSeconds is an hour", () => {
    assert.equal(new TokenBucketLimiter(120, 8).retryAfterSeconds, 3600);
  });
});

describe("limiter memory under any number of distinct keys", () => {
  const MILLION = 1_000_000;
  const BATCH = 100_000;

  /**
   * Drives a million distinct keys through `take`, one per `stepMs`; returns the largest map
   * size seen and the time per call of each batch of 100,000 (reported, not asserted: the
   * machine's speed is not under test, and the limiter has no loop whose cost could grow).
   */
  function drive(limiter: { take(key: string, now: number): boolean; size: number }, stepMs: number) {
    let largest = 0;
    const perCallNs: number[] = [];
    let started = process.hrtime.bigint();
    for (let i = 0; i < MILLION; i++) {
      limiter.take(`k${i}`, T0 + i * stepMs);
      if ((i + 1) % BATCH === 0) {
        largest = Math.max(largest, limiter.size);
        const now = process.hrtime.bigint();
        perCallNs.push(Math.round(Number(now - started) / BATCH));
        started = now;
      }
    }
    return { largest, perCallNs };
  }

  test("fixed window, all at one instant: bounded by the key capacity", (t) => {
    const { largest, perCallNs } = drive(new FixedWindowLimiter({ limit: 5, windowSeconds: 3600 }), 0);
    t.diagnostic(`largest size ${largest}; ns per call by batch: ${perCallNs.join(" ")}`);
    assert.ok(largest <= 2 * DEFAULT_KEY_CAPACITY, String(largest));
  });

  test("fixed window, spread over time: idle windows expire (at most two windows' keys are held)", (t) => {
    // One key per millisecond for 1000 s through a 60 s window, capacity out of the way.
    const { largest, perCallNs } = drive(new FixedWindowLimiter({ limit: 5, windowSeconds: 60 }, MILLION), 1);
    t.diagnostic(`largest size ${largest}; ns per call by batch: ${perCallNs.join(" ")}`);
    assert.ok(largest <= 2 * 60_000, String(largest));
  });

  test("token bucket, all at one instant: bounded by the key capacity", (t) => {
    const { largest, perCallNs } = drive(new TokenBucketLimiter(120, 8), 0);
    t.diagnostic(`largest size ${largest}; ns per call by batch: ${perCallNs.join(" ")}`);
    assert.ok(largest <= 2 * DEFAULT_KEY_CAPACITY, String(largest));
  });

  test("token bucket, spread over time: refilled buckets expire", (t) => {
    // 120/h with burst 8 refills completely in 4 minutes: at most two such spans of keys are held.
    const { largest, perCallNs } = drive(new TokenBucketLimiter(120, 8, MILLION), 1);
    t.diagnostic(`largest size ${largest}; ns per call by batch: ${perCallNs.join(" ")}`);
    assert.ok(largest <= 2 * 240_000, String(largest));
  });

  test("a client over budget stays refused while other keys come and go", () => {
    const l = new FixedWindowLimiter({ limit: 1, windowSeconds: 60 }, MILLION);
    assert.equal(l.take("a", T0), true);
    for (let i = 0; i < 200_000; i++) l.take(`k${i}`, T0 + Math.floor(i / 4)); // 50 s of traffic
    assert.equal(l.take("a", T0 + 59_999), false);
    assert.equal(l.take("a", T0 + 60_000), true);
  });

  test("an empty token bucket stays empty while other keys come and go", () => {
    const l = new TokenBucketLimiter(1, 1, MILLION); // one token an hour
    assert.equal(l.take("a", T0), true);
    for (let i = 0; i < 200_000; i++) l.take(`k${i}`, T0 + i * 15); // 3000 s of traffic
    assert.equal(l.take("a", T0 + 3_000_000), false);
    assert.equal(l.take("a", T0 + 3_601_000), true);
  });
});

describe("the named budgets", () => {
  const config: Config["rateLimit"] = {
    enabled: true,
    redisUrl: null,
    siteRegistration: 1,
    verificationStart: 2,
    verificationConfirm: 3,
    commentWrite: 4,
    profileRead: 5,
    challenge: 6,
    publicRead: 7,
    mediaProxy: 12,
    mediaUpload: 13,
    claimToken: 8,
    governanceWrite: 9,
    botMessage: 11,
    operator: 10,
    ssePerHour: 1,
    sseBurst: 11,
    sseMaxStreams: 500,
  };
  const expected: Record<RateLimitName, [budget: number, retryAfter: number]> = {
    siteRegistration: [1, 3600],
    verificationStart: [2, 3600],
    verificationConfirm: [3, 3600],
    commentWrite: [4, 3600],
    profileRead: [5, 3600],
    challenge: [6, 3600],
    publicRead: [7, 3600],
    mediaProxy: [12, 3600],
    mediaUpload: [13, 3600],
    claimToken: [8, 60],
    governanceWrite: [9, 3600],
    operator: [10, 60],
    sse: [11, 3600],
  };

  test("every group of the API's table has its configured budget and fixed Retry-After", () => {
    const limiters = buildLimiters(config)!;
    assert.deepEqual(Object.keys(limiters).sort(), Object.keys(expected).sort());
    for (const [name, [budget, retryAfter]] of Object.entries(expected)) {
      const limiter = limiters[name as RateLimitName];
      let admitted = 0;
      while (limiter.take("198.51.100.1", T0) && admitted <= budget) admitted++;
      assert.equal(admitted, budget, name);
      assert.equal(limiter.retryAfterSeconds, retryAfter, name);
    }
  });

  test("rate_limit.enabled = false builds none", () => {
    assert.equal(buildLimiters({ ...config, enabled: false }), null);
  });

  test("claim and operator routes spend their auth's budget before their group's", () => {
    assert.deepEqual(preAuthBudgets({ auth: "claim", rateLimit: "verificationStart" }), [
      "claimToken",
      "verificationStart",
    ]);
    assert.deepEqual(preAuthBudgets({ auth: "claim" }), ["claimToken"]);
    assert.deepEqual(preAuthBudgets({ auth: "operator", rateLimit: "operator" }), ["operator"]);
    assert.deepEqual(preAuthBudgets({ auth: "operator" }), ["operator"]);
    assert.deepEqual(preAuthBudgets({ auth: "public", rateLimit: "publicRead" }), ["publicRead"]);
    assert.deepEqual(preAuthBudgets({ auth: "author-proof" }), []);
  });

  test("no claim route spends the operator budget (the owner's claim-token rotation mirrors an operator operation)", () => {
    const claimRoutes = apiRoutes.filter((route) => route.auth === "claim");
    assert.ok(claimRoutes.some((route) => route.operationId === "rotateClaimToken"));
    for (const route of claimRoutes) assert.ok(!preAuthBudgets(route).includes("operator"), route.operationId);
    for (const route of apiRoutes.filter((r) => r.operationId.startsWith("rotateClaimToken")))
      assert.deepEqual(preAuthBudgets(route), ["claimToken"]);
  });

  test("a route with only a post-auth budget can answer 429 too", () => {
    assert.equal(isRateLimited({ auth: "public", postAuthRateLimit: "governanceWrite" }), true);
    assert.equal(isRateLimited({ auth: "public" }), false);
    assert.equal(isRateLimited({ auth: "claim" }), true);
  });
});
