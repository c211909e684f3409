// The named rate-limit budgets routes refer to, built from [rate_limit], and which of them a
// route takes before and after authentication.
import type { Config } from "../config/config.ts";
import { FixedWindowLimiter, TokenBucketLimiter } from "../security/rate-limit.ts";
import type { Route } from "./route.ts";

/** One per group of the API's rate-limit table. */
export type RateLimitName =
  | "siteRegistration"
  | "verificationStart"
  | "verificationConfirm"
  | "commentWrite"
  | "profileRead"
  | "claimToken"
  | "governanceWrite"
  | "publicRead"
  | "mediaProxy"
  | "mediaUpload"
  | "operator"
  | "sse"
  | "challenge";

export interface Limiter {
  take(key: string, now: number): boolean;
  /** The budget's window: Retry-After is this constant, not the time left (as the API documents). */
  readonly retryAfterSeconds: number;
}

export function buildLimiters(config: Config["rateLimit"]): Record<RateLimitName, Limiter> | null {
  if (!config.enabled) return null;
  const hourly = (limit: number) => new FixedWindowLimiter({ limit, windowSeconds: 3600 });
  const perMinute = (limit: number) => new FixedWindowLimiter({ limit, windowSeconds: 60 });
  return {
    siteRegistration: hourly(config.siteRegistration),
    verificationStart: hourly(config.verificationStart),
    verificationConfirm: hourly(config.verificationConfirm),
    commentWrite: hourly(config.commentWrite),
    profileRead: hourly(config.profileRead),
    claimToken: perMinute(config.claimToken),
    governanceWrite: hourly(config.governanceWrite),
    publicRead: hourly(config.publicRead),
    mediaProxy: hourly(config.mediaProxy),
    mediaUpload: hourly(config.mediaUpload),
    operator: perMinute(config.operator),
    sse: new TokenBucketLimiter(config.ssePerHour, config.sseBurst),
    challenge: hourly(config.challenge),
  };
}

/**
 * The budgets a route takes before its credentials are checked, in order: the ones its auth
 * implies (every claim-token attempt takes the claimToken bucket, every operator request the
 * operator budget, so missing, invalid and valid credentials alike count), then its own group's.
 */
export function preAuthBudgets(route: Pick<Route, "auth" | "rateLimit">): RateLimitName[] {
  const names: RateLimitName[] = route.auth === "claim" ? ["claimToken"] : route.auth === "operator" ? ["operator"] : [];
  if (route.rateLimit && !names.includes(route.rateLimit)) names.push(route.rateLimit);
  return names;
}

/** Whether a route can answer 429 rate-limited (for the OpenAPI document). */
export const isRateLimited = (route: Pick<Route, "auth" | "rateLimit" | "postAuthRateLimit">): boolean =>
  preAuthBudgets(route).length > 0 || route.postAuthRateLimit !== undefined;
