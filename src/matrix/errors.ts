// Classifying homeserver failures: transient ones are retried with backoff, permanent ones are
// recorded on the submission.

export interface MatrixFailure {
  transient: boolean;
  /** Server-requested wait (M_LIMIT_EXCEEDED), if any. */
  retryAfterMs: number | null;
  message: string;
}

export function classifyMatrixError(err: unknown): MatrixFailure {
  const e = err as { statusCode?: number; errcode?: string; error?: string; retryAfterMs?: number; message?: string; code?: string };
  if (typeof e?.statusCode === "number") {
    const status = e.statusCode;
    const message = `${status} ${e.errcode ?? ""} ${e.error ?? e.message ?? ""}`.trim();
    const transient = status === 429 || status >= 500 || e.errcode === "M_LIMIT_EXCEEDED";
    return { transient, retryAfterMs: e.retryAfterMs ?? null, message };
  }
  // No HTTP answer at all (connection refused, reset, timeout): the homeserver may come back.
  return { transient: true, retryAfterMs: null, message: e?.message ?? String(err) };
}

export const hasErrcode = (err: unknown, errcode: string): boolean => (err as { errcode?: string })?.errcode === errcode;
