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

  test("first attempt waits the base delay", () => {
    assert.equal(retryDelayMs(1, 1000, low), 1000);
    assert.equal(retryDelayMs(1, 1000, high), 1000);
  });

  test("attempt 0 is treated like attempt 1", () => {
    assert.equal(retryDelayMs(0, 1000, high), 1000);
  });

  test("the ceiling doubles per attempt; jitter keeps it within [ceiling/2, ceiling]", () => {
    assert.equal(retryDelayMs(2, 1000, high), 2000);
    assert.equal(retryDelayMs(2, 1000, low), 1000);
    assert.equal(retryDelayMs(3, 1000, high), 4000);
    assert.equal(retryDelayMs(3, 1000, low), 2000);
    assert.equal(retryDelayMs(3, 1000, mid), 3000);
    assert.equal(retryDelayMs(5, 250, high), 4000);
    assert.equal(retryDelayMs(5, 250, low), 2000);
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
