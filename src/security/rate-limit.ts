// In-memory rate limits (per instance, as the API documents): fixed windows per client key,
// and a token bucket for SSE connections.

export interface Budget {
  limit: number;
  windowSeconds: number;
}

export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly budget: Budget) {}

  /** Counts one request; false when the key is over budget for the current window. */
  take(key: string, now: number): boolean {
    const windowMs = this.budget.windowSeconds * 1000;
    let entry = this.windows.get(key);
    if (!entry || now - entry.start >= windowMs) {
      entry = { start: now, count: 0 };
      this.windows.set(key, entry);
      if (this.windows.size > 10_000) this.sweep(now);
    }
    if (entry.count >= this.budget.limit) return false;
    entry.count++;
    return true;
  }

  get retryAfterSeconds(): number {
    return this.budget.windowSeconds;
  }

  private sweep(now: number): void {
    const windowMs = this.budget.windowSeconds * 1000;
    for (const [key, entry] of this.windows) if (now - entry.start >= windowMs) this.windows.delete(key);
  }
}

export class TokenBucketLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** `perHour` tokens refill evenly over an hour, up to `burst`. */
  constructor(private readonly perHour: number, private readonly burst: number) {}

  take(key: string, now: number): boolean {
    const refillPerMs = this.perHour / 3_600_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * refillPerMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  readonly retryAfterSeconds = 3600;
}
