import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FixedWindowLimiter, TokenBucketLimiter } from "../../src/security/rate-limit.ts";

const T0 = 1_700_000_000_000;

describe("FixedWindowLimiter", () => {
  test("allows `limit` requests per window, then refuses", () => {
    const l = new FixedWindowLimiter({ limit: 3, windowSeconds: 60 });
    assert.deepEqual([l.take("a", T0), l.take("a", T0 + 1), l.take("a", T0 + 2), l.take("a", T0 + 3)], [true, true, true, false]);
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
