// Retry delays for transient failures (the homeserver's, webhook receivers'): exponential with jitter, capped.

export const MAX_RETRY_DELAY_MS = 10 * 60 * 1000;

/**
 * The delay before retry `attempt` (1: the first): drawn from [ceiling/2, ceiling], where the
 * ceiling is twice the base for the first retry, doubles per attempt and stops at `maxMs`. The
 * first retry is jittered like the rest (never below the base), so failures that began together
 * (an outage) are not all retried at the same instant.
 */
export function retryDelayMs(
  attempt: number,
  baseMs: number,
  random = Math.random,
  maxMs: number = MAX_RETRY_DELAY_MS,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(1, attempt));
  return Math.round(ceiling * (0.5 + random() / 2));
}
