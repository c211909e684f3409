// Retry delays for transient failures (the homeserver's, webhook receivers'): exponential with jitter, capped.

export const MAX_RETRY_DELAY_MS = 10 * 60 * 1000;

export function retryDelayMs(
  attempt: number,
  baseMs: number,
  random = Math.random,
  maxMs: number = MAX_RETRY_DELAY_MS,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.min(maxMs, Math.max(baseMs, Math.round(ceiling * (0.5 + random() / 2))));
}
