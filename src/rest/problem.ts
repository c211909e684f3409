// RFC 9457 problem details: the one mapping from failures to HTTP error responses.
import { DomainError, type FieldError } from "../domain/errors.ts";

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
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export function problem(code: string, status: number, detail: string, extra: { errors?: FieldError[]; instance?: string } = {}): Problem {
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

/** Maps any thrown value to a problem; unexpected errors become an opaque 500. */
export function toProblem(err: unknown, instance?: string): ProblemResponse & { unexpected: boolean } {
  if (err instanceof DomainError) {
    return {
      problem: problem(err.code, err.status, err.message, { errors: err.extra.errors, instance }),
      headers: err.extra.headers ?? {},
      unexpected: false,
    };
  }
  return { problem: problem("internal-error", 500, "The service failed to handle this request.", { instance }), headers: {}, unexpected: true };
}
