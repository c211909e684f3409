// A shared budget spent without a round trip per request (quota leasing): an instance takes
// points from the shared counter (PostgreSQL or Redis) in leases of max(1, floor(points / 100))
// per client key and spends them in memory until they are used up or the window ends. The store
// counts every leased point, so across N instances a client's admitted requests in one window
// stay within N × (lease − 1) of the budget either way:
// - fewer: up to lease − 1 points may sit unspent in each other instance's lease;
// - more: a lease is spent until the window's end as this instance measured it (the request's
//   start plus the store's time left, so no later than the store's own end); an instance whose
//   clock runs ahead may start the store's next window while the others finish their leases.
// Budgets under 100 points lease one point at a time, so they stay exact. A lease the store
// cannot fully grant gets what was left and the key is refused until the window ends. The
// concurrent requests of one key share one lease request in flight (sized to cover them all).
// If the store fails, the waiting requests are counted by the per-instance fallback limiter.
import { RateLimiterRes } from "rate-limiter-flexible";
import type { Limiter, SharedBudget } from "../config/limits.ts";
import { GenerationMap } from "../security/generation-map.ts";
import { DEFAULT_KEY_CAPACITY } from "../security/rate-limit.ts";

/**
 * What leasing needs of a rate-limiter-flexible store: add points to a key's counter in its
 * current window. Past the budget it rejects with a RateLimiterRes (the points are counted all the same).
 */
export interface CounterStore {
  consume(key: string, points: number): Promise<Pick<RateLimiterRes, "consumedPoints" | "msBeforeNext">>;
}

/** Points one lease takes from the shared counter. */
export const leaseSize = (points: number): number => Math.max(1, Math.floor(points / 100));

/**
 * How many of `asked` points a lease got, the counter being `consumed` after adding them. The
 * excess stays counted: a later lease sees the counter already past the budget and gets none,
 * and giving it back could land after the window's end and open the next window below zero.
 */
export const grantedPoints = (asked: number, consumed: number, points: number): number =>
  Math.min(asked, Math.max(0, points - (consumed - asked)));

interface KeyLease {
  /** Points leased and not yet spent. */
  left: number;
  /** When the lease's window ends (and `left` and `spent` with it). */
  until: number;
  /** The store has nothing left in this window. */
  spent: boolean;
  inFlight: boolean;
  /** Requests waiting for the lease in flight. */
  waiting: Array<(admitted: boolean | Promise<boolean>) => void>;
}

export function leasedLimiter(store: CounterStore, budget: SharedBudget, capacity = DEFAULT_KEY_CAPACITY): Limiter {
  const size = leaseSize(budget.points);
  // A key's lease is worth nothing after its window, so its entry may go then.
  const leases = new GenerationMap<KeyLease>(budget.windowSeconds * 1000, capacity);

  async function refill(key: string, lease: KeyLease, now: number): Promise<void> {
    lease.inFlight = true;
    try {
      // Requests arriving while a lease is in flight wait for it; the next lease covers those it could not.
      while (lease.waiting.length > 0 && !lease.spent) {
        const asked = Math.max(size, lease.waiting.length);
        let counter: Pick<RateLimiterRes, "consumedPoints" | "msBeforeNext">;
        try {
          counter = await store.consume(key, asked);
        } catch (err) {
          if (!(err instanceof RateLimiterRes)) {
            for (const admit of lease.waiting.splice(0)) admit(budget.fallback.take(key, now));
            return;
          }
          counter = err;
        }
        const granted = grantedPoints(asked, counter.consumedPoints, budget.points);
        lease.left = granted;
        lease.until = now + counter.msBeforeNext;
        lease.spent = granted < asked;
        while (lease.left > 0 && lease.waiting.length > 0) {
          lease.left--;
          lease.waiting.shift()!(true);
        }
      }
      for (const refuse of lease.waiting.splice(0)) refuse(false);
    } finally {
      lease.inFlight = false;
    }
  }

  return {
    retryAfterSeconds: budget.fallback.retryAfterSeconds,
    take(key: string, now: number): boolean | Promise<boolean> {
      let lease = leases.get(key, now);
      if (!lease) {
        lease = { left: 0, until: 0, spent: false, inFlight: false, waiting: [] };
        leases.set(key, lease, now);
      }
      if (now >= lease.until) {
        lease.left = 0;
        lease.spent = false;
      }
      if (lease.left > 0) {
        lease.left--;
        return true;
      }
      if (lease.spent) return false;
      const held = lease;
      return new Promise((resolve) => {
        held.waiting.push(resolve);
        if (!held.inFlight) void refill(key, held, now);
      });
    },
  };
}
