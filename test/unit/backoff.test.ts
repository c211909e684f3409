import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { MAX_RETRY_DELAY_MS, retryDelayMs } from "../../src/queue/backoff.ts";

const low = () => 0;
const high = () => 1;
const mid = () => 0.5;

describe("retryDelayMs", () => {
  test("the cap is 10 minutes", () => {
    assert.equal(MAX_RETRY_DELAY_MS, 600_000);
  });

  test("the first retry is jittered within [base, 2 × base]", () => {
    assert.equal(retryDelayMs(1, 1000, low), 1000);
    assert.equal(retryDelayMs(1, 1000, mid), 1500);
    assert.equal(retryDelayMs(1, 1000, high), 2000);
  });

  test("attempt 0 is treated like attempt 1", () => {
    assert.equal(retryDelayMs(0, 1000, high), 2000);
  });

  test("the ceiling doubles per attempt; jitter keeps it within [ceiling/2, ceiling]", () => {
    assert.equal(retryDelayMs(2, 1000, high), 4000);
    assert.equal(retryDelayMs(2, 1000, low), 2000);
    assert.equal(retryDelayMs(3, 1000, high), 8000);
    assert.equal(retryDelayMs(3, 1000, low), 4000);
    assert.equal(retryDelayMs(3, 1000, mid), 6000);
    assert.equal(retryDelayMs(5, 250, high), 8000);
    assert.equal(retryDelayMs(5, 250, low), 4000);
  });

  test("first retries that failed together spread out", () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const delays = new Set(Array.from({ length: 100 }, () => retryDelayMs(1, 1000, random)));
    assert.ok(delays.size > 50, `${delays.size} distinct delays of 100`);
  });

  test("capped at MAX_RETRY_DELAY_MS for large attempts", () => {
    assert.equal(retryDelayMs(20, 1000, high), MAX_RETRY_DELAY_MS);
    assert.equal(retryDelayMs(20, 1000, low), MAX_RETRY_DELAY_MS / 2);
    assert.equal(retryDelayMs(5000, 1000, high), MAX_RETRY_DELAY_MS);
  });

  test("never below the base delay", () => {
    for (let attempt = 1; attempt <= 30; attempt++) {
      assert.ok(retryDelayMs(attempt, 1000, low) >= 1000, String(attempt));
    }
  });

  test("capped at MAX_RETRY_DELAY_MS even when the base delay exceeds it (queue.retry_base_ms allows up to 1 hour)", {}, () => {
    assert.ok(retryDelayMs(1, 3_600_000, high) <= MAX_RETRY_DELAY_MS);
  });
});
