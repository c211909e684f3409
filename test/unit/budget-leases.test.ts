import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { RateLimiterRes } from "rate-limiter-flexible";
import { grantedPoints, leasedLimiter, leaseSize, type CounterStore } from "../../src/cluster/budget-leases.ts";
import { FixedWindowLimiter } from "../../src/security/rate-limit.ts";

const T0 = 1_700_000_000_000;
const HOUR_MS = 3_600_000;

/** rate-limiter-flexible's fixed-window counter semantics in memory: points past the budget are counted and the consume rejects. */
class FakeCounters implements CounterStore {
  readonly calls: number[] = [];
  now = T0;
  /** When set, every consume waits for it (requests in flight). */
  gate: Promise<void> | null = null;
  failing = false;
  private readonly counters = new Map<string, { consumed: number; expire: number }>();

  constructor(private readonly points: number) {}

  async consume(key: string, points: number): Promise<RateLimiterRes> {
    this.calls.push(points);
    // biome-ignore lint/nursery/noMisusedPromises: the gate is a pending promise the test resolves, awaited when set.
    if (this.gate) await this.gate;
    if (this.failing) throw new Error("connection refused");
    let counter = this.counters.get(key);
    if (!counter || counter.expire <= this.now) counter = { consumed: 0, expire: this.now + HOUR_MS };
    counter.consumed += points;
    this.counters.set(key, counter);
    const res = new RateLimiterRes(
      Math.max(0, this.points - counter.consumed),
      counter.expire - this.now,
      counter.consumed,
    );
    if (counter.consumed > this.points) throw res;
    return res;
  }
}

function instance(store: FakeCounters, points: number, fallbackLimit = 2) {
  return leasedLimiter(store, {
    name: "g",
    points,
    windowSeconds: 3600,
    fallback: new FixedWindowLimiter({ limit: fallbackLimit, windowSeconds: 3600 }),
  });
}

async function takeMany(limiter: ReturnType<typeof instance>, n: number, now = T0): Promise<boolean[]> {
  const results: boolean[] = [];
  for (let i = 0; i < n; i++) results.push(await limiter.take("client", now));
  return results;
}

const count = (results: boolean[]) => results.filter(Boolean).length;

describe("budget leases", () => {
  test("a lease is a hundredth of the budget, at least one point", () => {
    assert.deepEqual([6, 99, 100, 199, 1000, 3600].map(leaseSize), [1, 1, 1, 1, 10, 36]);
  });

  test("a lease gets what the counter had left before it", () => {
    assert.equal(grantedPoints(10, 10, 1000), 10);
    assert.equal(grantedPoints(10, 1000, 1000), 10);
    assert.equal(grantedPoints(10, 1003, 1000), 7);
    assert.equal(grantedPoints(10, 1010, 1000), 0);
    assert.equal(grantedPoints(10, 1500, 1000), 0);
  });

  test("a small budget stays exact across instances: one point per request", async () => {
    const store = new FakeCounters(6);
    const [a, b] = [instance(store, 6), instance(store, 6)];
    const results: boolean[] = [];
    for (let i = 0; i < 4; i++) for (const limiter of [a, b]) results.push(await limiter.take("client", T0));
    assert.deepEqual(results, [true, true, true, true, true, true, false, false]);
    assert.deepEqual(store.calls, [1, 1, 1, 1, 1, 1, 1, 1]);
  });

  test("a large budget is spent locally, one store call per lease, then refused without calls", async () => {
    const store = new FakeCounters(1000);
    const limiter = instance(store, 1000);
    const results = await takeMany(limiter, 1000);
    assert.equal(count(results), 1000);
    assert.equal(store.calls.length, 100);
    assert.deepEqual(await takeMany(limiter, 5), [false, false, false, false, false]);
    assert.equal(
      store.calls.length,
      101,
      "one lease learns the budget is spent; the next requests are refused locally",
    );
  });

  test("the last lease takes what is left", async () => {
    const store = new FakeCounters(205);
    const limiter = instance(store, 205);
    assert.equal(count(await takeMany(limiter, 210)), 205);
    assert.equal(store.calls.length, 103);
  });

  test("across instances the admitted total stays within N × (lease − 1) of the budget", async () => {
    const store = new FakeCounters(1000);
    const [a, b, c] = [instance(store, 1000), instance(store, 1000), instance(store, 1000)];
    let admitted = 0;
    // Uneven spreading: leases left unspent on b and c are what the client loses.
    for (let i = 0; i < 1200; i++) if (await (i % 7 === 0 ? b : i % 11 === 0 ? c : a).take("client", T0)) admitted++;
    assert.ok(admitted <= 1000 && admitted >= 1000 - 3 * 9, `admitted ${admitted}`);
  });

  test("concurrent requests of one key share the lease in flight; the next lease covers the rest", async () => {
    const store = new FakeCounters(1000);
    const limiter = instance(store, 1000);
    let open!: () => void;
    store.gate = new Promise((resolve) => (open = resolve));
    const pending = Array.from({ length: 25 }, () => limiter.take("client", T0));
    assert.deepEqual(store.calls, [10], "one lease in flight for 25 requests");
    store.gate = null;
    open();
    assert.equal(count(await Promise.all(pending)), 25);
    assert.deepEqual(store.calls, [10, 15]);
    // The second lease was used up exactly: the next request leases again.
    await limiter.take("client", T0);
    assert.deepEqual(store.calls, [10, 15, 10]);
  });

  test("concurrent requests over a small budget: those the store cannot cover are refused", async () => {
    const store = new FakeCounters(6);
    const limiter = instance(store, 6);
    assert.equal(count(await takeMany(limiter, 5)), 5);
    const results = await Promise.all([
      limiter.take("client", T0),
      limiter.take("client", T0),
      limiter.take("client", T0),
    ]);
    assert.deepEqual(results, [true, false, false]);
    assert.deepEqual(store.calls.slice(5), [1, 2]);
  });

  test("leases and refusals end with the window", async () => {
    const store = new FakeCounters(6);
    const limiter = instance(store, 6);
    assert.equal(count(await takeMany(limiter, 8)), 6);
    store.now = T0 + HOUR_MS;
    assert.deepEqual(await takeMany(limiter, 7, store.now), [true, true, true, true, true, true, false]);
  });

  test("keys are independent", async () => {
    const store = new FakeCounters(1);
    const limiter = instance(store, 1);
    assert.equal(await limiter.take("a", T0), true);
    assert.equal(await limiter.take("a", T0), false);
    assert.equal(await limiter.take("b", T0), true);
  });

  test("when the store fails, the waiting requests are counted by the per-instance fallback", async () => {
    const store = new FakeCounters(1000);
    store.failing = true;
    const limiter = instance(store, 1000, 2);
    assert.deepEqual(
      await Promise.all([limiter.take("client", T0), limiter.take("client", T0), limiter.take("client", T0)]),
      [true, true, false],
    );
    store.failing = false;
    assert.equal(await limiter.take("client", T0), true, "the store is asked again once it answers");
  });
});
