// Requests with the retry rules every call shares: network failures are retried with backoff
// (a write resends the very same bytes and Idempotency-Key, so the service replays instead of
// posting twice), and 429/503 wait for Retry-After when it is short enough to wait for.
import type { Problem } from "./types.ts";

export interface RetryPolicy {
  /** Network failures (and 429/503) retried before giving up. */
  attempts: number;
  /** First backoff after a network failure (ms); doubles per attempt, with jitter. */
  baseDelayMs: number;
  /** A Retry-After longer than this (ms) is not waited for: the error goes to the caller. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxRetryAfterMs: 30_000 };

/** A problem-details answer (RFC 9457); `retryAfterMs` is set for 429/503. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
    readonly retryAfterMs: number | null,
  ) {
    super(problem ? `${status} ${problem.code}: ${problem.detail}` : `HTTP ${status}`);
    this.name = "ApiError";
  }

  get code(): string | null {
    return this.problem?.code ?? null;
  }
}

export interface Request {
  method: string;
  path: string;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(timer), reject(signal!.reason));
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export const backoffMs = (base: number, attempt: number) =>
  Math.min(30_000, base * 2 ** attempt) * (0.75 + Math.random() / 2);

/** Retry-After in ms (delta-seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

export class Http {
  constructor(
    readonly baseUrl: string,
    readonly retry: RetryPolicy = DEFAULT_RETRY,
    readonly fetch: typeof globalThis.fetch = (...args) => globalThis.fetch(...args),
  ) {}

  /**
   * Sends `request`, retrying as described above; resolves with a 2xx response, rejects with an
   * ApiError otherwise. `onNetworkRetry` tells the caller that an earlier attempt may have
   * reached the service (a key-less write may then need a fresh proof, see CommentsClient).
   */
  async send(request: Request, onNetworkRetry?: () => void): Promise<Response> {
    const contentType = request.body instanceof Uint8Array ? "application/octet-stream" : "application/json";
    const init: RequestInit = {
      method: request.method,
      headers: { ...(request.body !== undefined ? { "content-type": contentType } : {}), ...request.headers },
      body: request.body as BodyInit | undefined,
      signal: request.signal,
    };
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetch(`${this.baseUrl}${request.path}`, init);
      } catch (err) {
        if (request.signal?.aborted || attempt >= this.retry.attempts) throw err;
        onNetworkRetry?.();
        await sleep(backoffMs(this.retry.baseDelayMs, attempt), request.signal);
        continue;
      }
      if (res.ok) return res;
      const wait =
        res.status === 429 || res.status === 503
          ? (retryAfterMs(res.headers.get("retry-after")) ?? backoffMs(this.retry.baseDelayMs, attempt))
          : null;
      if (wait !== null && wait <= this.retry.maxRetryAfterMs && attempt < this.retry.attempts) {
        await res.body?.cancel();
        await sleep(wait, request.signal);
        continue;
      }
      throw new ApiError(res.status, await problemOf(res), wait);
    }
  }

  async json<T>(request: Request): Promise<T> {
    return (await (await this.send(request)).json()) as T;
  }
}

async function problemOf(res: Response): Promise<Problem | null> {
  try {
    return (await res.json()) as Problem;
  } catch {
    return null;
  }
}
