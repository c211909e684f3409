// Which of the rate-limit groups (src/config/limits.ts) a route takes before and after
// authentication.
import type { RateLimitName } from "../config/limits.ts";
import type { Auth } from "./route.ts";

/** What a route declares about its budgets. */
interface RouteBudgets {
  auth: Auth;
  rateLimit?: RateLimitName;
  postAuthRateLimit?: RateLimitName;
}

/**
 * The budgets a route takes before its credentials are checked, in order: the ones its auth
 * implies (every claim-token attempt takes the claimToken bucket, every operator request the
 * operator budget, so missing, invalid and valid credentials alike count), then its own group's.
 */
export function preAuthBudgets(route: Omit<RouteBudgets, "postAuthRateLimit">): RateLimitName[] {
  const names: RateLimitName[] =
    route.auth === "claim" ? ["claimToken"] : route.auth === "operator" ? ["operator"] : [];
  if (route.rateLimit && !names.includes(route.rateLimit)) names.push(route.rateLimit);
  return names;
}

/** Whether a route can answer 429 rate-limited (for the OpenAPI document). */
export const isRateLimited = (route: RouteBudgets): boolean =>
  preAuthBudgets(route).length > 0 || route.postAuthRateLimit !== undefined;
