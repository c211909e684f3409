// The named rate-limit budgets routes refer to, built from [rate_limit].
import type { Config } from "../config/config.ts";
import { FixedWindowLimiter, TokenBucketLimiter } from "../security/rate-limit.ts";

export type RateLimitName = "siteRegistration" | "commentWrite" | "challenge" | "publicRead" | "operator" | "sse";

export interface Limiter {
  take(key: string, now: number): boolean;
  readonly retryAfterSeconds: number;
}

export function buildLimiters(config: Config["rateLimit"]): Record<RateLimitName, Limiter> | null {
  if (!config.enabled) return null;
  const hourly = (limit: number) => new FixedWindowLimiter({ limit, windowSeconds: 3600 });
  return {
    siteRegistration: hourly(config.siteRegistration),
    commentWrite: hourly(config.commentWrite),
    challenge: hourly(config.challenge),
    publicRead: hourly(config.publicRead),
    operator: new FixedWindowLimiter({ limit: config.operator, windowSeconds: 60 }),
    sse: new TokenBucketLimiter(config.ssePerHour, config.sseBurst),
  };
}
