// In-memory rate limits (per instance, as the API documents): fixed windows per client key,
// and a token bucket for SSE connections. State lives in a GenerationMap, so memory stays
// bounded under any number of distinct keys and idle keys are forgotten without scans.
import { GenerationMap } from "./generation-map.ts";

/**
 * Keys a limiter tracks per generation before it starts forgetting the oldest generation early
 * (which gives those clients a fresh budget). Far above the distinct clients one instance sees
 * in an hour; a flood of distinct keys (addresses are cheap in IPv6) costs memory up to twice this.
 */
export const DEFAULT_KEY_CAPACITY = 50_000;

export interface Budget {
  limit: number;
  windowSeconds: number;
}

export class FixedWindowLimiter {
  private readonly windows: GenerationMap<{ start: number; count: number }>;

  constructor(
    private readonly budget: Budget,
    capacity = DEFAULT_KEY_CAPACITY,
  ) {
    // A window that has ended is the same as none, so its entry may go once it ends.
    this.windows = new GenerationMap(budget.windowSeconds * 1000, capacity);
  }

  /** Counts one request; false when the key is over budget for the current window. */
  take(key: string, now: number): boolean {
    let entry = this.windows.get(key, now);
    if (!entry || now - entry.start >= this.budget.windowSeconds * 1000) {
      entry = { start: now, count: 0 };
      this.windows.set(key, entry, now);
    }
    if (entry.count >= this.budget.limit) return false;
    entry.count++;
    return true;
  }

  get retryAfterSeconds(): number {
    return this.budget.windowSeconds;
  }

  /** Keys currently tracked (for tests of the memory bound). */
  get size(): number {
    return this.windows.size;
  }
}

export class TokenBucketLimiter {
  private readonly buckets: GenerationMap<{ tokens: number; at: number }>;
  private readonly refillPerMs: number;

  /** `perHour` tokens refill evenly over an hour, up to `burst`. */
  constructor(
    perHour: number,
    private readonly burst: number,
    capacity = DEFAULT_KEY_CAPACITY,
  ) {
    this.refillPerMs = perHour / 3_600_000;
    // Once it has had time to refill completely, a bucket is the same as none.
    this.buckets = new GenerationMap(Math.ceil(burst / this.refillPerMs), capacity);
  }

  take(key: string, now: number): boolean {
    let bucket = this.buckets.get(key, now);
    if (!bucket) {
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(key, bucket, now);
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.refillPerMs);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  readonly retryAfterSeconds = 3600;

  /** Keys currently tracked (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }
}
