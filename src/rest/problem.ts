// RFC 9457 problem details: the one mapping from failures to HTTP error responses.
import { DomainError, type FieldError } from "../core/errors.ts";
import { homeserverFailure } from "../matrix/errors.ts";
import { HOMESERVER_RETRY_AFTER_SECONDS } from "../config/limits.ts";

export const PROBLEM_TYPE_BASE = "urn:comment-service:problem:";
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: FieldError[];
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

export function problem(
  code: string,
  status: number,
  detail: string,
  extra: { errors?: FieldError[]; instance?: string } = {},
): Problem {
  return {
    type: PROBLEM_TYPE_BASE + code,
    title: TITLES[status] ?? "Error",
    status,
    detail,
    code,
    ...(extra.instance ? { instance: extra.instance } : {}),
    ...(extra.errors ? { errors: extra.errors } : {}),
  };
}

export interface ProblemResponse {
  problem: Problem;
  headers: Record<string, string>;
}

/**
 * Homeserver failures of routes that wait on the homeserver (uploads, avatars, sticker edits):
 * 503 homeserver-unavailable (unreachable, timed out, 5xx, 429; nothing was recorded, so the
 * same request, Idempotency-Key included, may be retried) or 502 homeserver-refused (a
 * permanent Matrix refusal). Classified here, where every failure becomes a problem, rather than
 * by wrapping each call: those calls sit deep in provisioning and the operations, and the
 * classification recognises only matrix-bot-sdk's and fetch's error shapes, never the database's.
 */
const homeserverProblems = {
  unavailable: () =>
    new DomainError("homeserver-unavailable", 503, "The homeserver is unavailable; retry later.", {
      headers: { "Retry-After": String(HOMESERVER_RETRY_AFTER_SECONDS) },
    }),
  refused: () => new DomainError("homeserver-refused", 502, "The homeserver refused the change."),
};

/**
 * Maps any thrown value to a problem; unexpected errors become an opaque 500. `unexpected` asks
 * for the error to be logged: those 500s, and homeserver refusals (a misconfigured room or bot).
 */
export function toProblem(err: unknown, instance?: string): ProblemResponse & { unexpected: boolean } {
  const failure = err instanceof DomainError ? null : homeserverFailure(err);
  if (failure) err = homeserverProblems[failure]();
  if (err instanceof DomainError) {
    return {
      problem: problem(err.code, err.status, err.message, { errors: err.extra.errors, instance }),
      headers: err.extra.headers ?? {},
      unexpected: failure === "refused",
    };
  }
  return {
    problem: problem("internal-error", 500, "The service failed to handle this request.", { instance }),
    headers: {},
    unexpected: true,
  };
}
