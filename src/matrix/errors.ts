// Classifying homeserver failures: transient ones are retried with backoff, permanent ones are
// recorded on the submission; during a request, they are answered 503 or 502 (homeserverFailure).
import { IncomingMessage } from "node:http";

export interface MatrixFailure {
  transient: boolean;
  /** Server-requested wait (M_LIMIT_EXCEEDED), if any. */
  retryAfterMs: number | null;
  message: string;
}

export function classifyMatrixError(err: unknown): MatrixFailure {
  const e = err as {
    statusCode?: number;
    errcode?: string;
    error?: string;
    retryAfterMs?: number;
    message?: string;
    code?: string;
  };
  if (typeof e?.statusCode === "number") {
    const status = e.statusCode;
    const message = `${status} ${e.errcode ?? ""} ${e.error ?? e.message ?? ""}`.trim();
    const transient = transientStatus(status, e.errcode);
    return { transient, retryAfterMs: e.retryAfterMs ?? null, message };
  }
  // No HTTP answer at all (connection refused, reset, timeout): the homeserver may come back.
  return { transient: true, retryAfterMs: null, message: e?.message ?? String(err) };
}

export const hasErrcode = (err: unknown, errcode: string): boolean =>
  (err as { errcode?: string })?.errcode === errcode;

/** Whether the homeserver may accept later what it refused now (rate limited, overloaded, failing). */
const transientStatus = (status: number, errcode: string | undefined) =>
  status === 429 || status >= 500 || errcode === "M_LIMIT_EXCEEDED";

/** Socket and DNS failures (Node, as matrix-bot-sdk's `request` reports them) that leave no HTTP answer. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

/**
 * What a failed homeserver call means for a request waiting on it: "unavailable" when the
 * homeserver could not be reached or answered a transient failure (retry later), "refused" for
 * a permanent Matrix refusal (another 4xx), null for anything that is not a homeserver failure.
 * Only the shapes matrix-bot-sdk and fetch produce count: a MatrixError (statusCode + errcode),
 * the raw response of a non-Matrix error status, or a network error without an answer. Database
 * failures never do, even when they carry a socket code (Prisma's own errors wrap those).
 */
export function homeserverFailure(err: unknown): "unavailable" | "refused" | null {
  if (typeof err !== "object" || err === null || isDatabaseError(err)) return null;
  const e = err as { statusCode?: unknown; errcode?: unknown };
  if (typeof e.statusCode === "number" && (typeof e.errcode === "string" || err instanceof IncomingMessage)) {
    if (transientStatus(e.statusCode, typeof e.errcode === "string" ? e.errcode : undefined)) return "unavailable";
    return e.statusCode >= 400 ? "refused" : null;
  }
  return isNetworkError(err) ? "unavailable" : null;
}

function isNetworkError(err: object): boolean {
  const e = err as { code?: unknown; name?: unknown; cause?: unknown };
  if (e.name === "AbortError" || e.name === "TimeoutError") return true;
  if (typeof e.code === "string" && (NETWORK_CODES.has(e.code) || e.code.startsWith("UND_ERR_"))) return true;
  // fetch reports "fetch failed" (a TypeError) with the network error as its cause.
  return typeof e.cause === "object" && e.cause !== null && isNetworkError(e.cause);
}

/** Prisma's errors (P1001 unreachable, …) and those of its driver adapters. */
function isDatabaseError(err: object): boolean {
  const { name, code } = err as { name?: unknown; code?: unknown };
  return (
    (typeof name === "string" && (name.startsWith("Prisma") || name === "DriverAdapterError")) ||
    (typeof code === "string" && /^P\d{4}$/.test(code))
  );
}
