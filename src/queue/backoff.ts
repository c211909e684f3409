// Retry delays for transient homeserver failures: exponential with full jitter, capped.

export const MAX_RETRY_DELAY_MS = 10 * 60 * 1000;

export function retryDelayMs(attempt: number, baseMs: number, random = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(baseMs, Math.round(ceiling * (0.5 + random() / 2))));
}
