// Refusals as the service writes every one of them (RFC 9457 problem details, see
// src/rest/problem.ts): one check of the whole shape, shared by every test that expects one.
import assert from "node:assert/strict";
import type { Answer } from "./calls.ts";

/** A received answer, however it came (fetch or a raw socket): status, header lookup, body text. */
export interface ReceivedAnswer {
  status: number;
  header: (name: string) => string | null | undefined;
  body: string;
}

/**
 * Asserts `res` is the problem `status` `code` in full: the problem content type, nosniff, no
 * authentication challenge, and a body whose code, status, type URI, title and detail agree.
 * `what` names the request in failure messages. Returns the problem body (untyped: tests read
 * the fields a given code carries, such as `errors`).
 */
export function assertProblem(res: ReceivedAnswer, status: number, code: string, what?: string): any {
  const context = what ? `${what}: ${res.body}` : res.body;
  assert.equal(res.status, status, context);
  assert.equal(res.header("content-type"), "application/problem+json", context);
  assert.equal(res.header("x-content-type-options"), "nosniff", context);
  assert.equal(res.header("www-authenticate") ?? null, null, context);
  const problem = JSON.parse(res.body);
  assert.equal(problem.code, code, context);
  assert.equal(problem.status, status, context);
  assert.equal(problem.type, `urn:comment-service:problem:${code}`, context);
  assert.equal(typeof problem.title, "string", context);
  assert.equal(typeof problem.detail, "string", context);
  return problem;
}

/** assertProblem for a fetch Response. */
export async function expectProblem(res: Response, status: number, code: string, what?: string): Promise<any> {
  return assertProblem(
    { status: res.status, header: (name) => res.headers.get(name), body: await res.text() },
    status,
    code,
    what,
  );
}

/** "<status> <code>" of an answer: refusals compared in one assertion, e.g. in tables of cases. */
export async function statusAndCode(answer: Response | Answer | Promise<Response | Answer>): Promise<string> {
  const settled = await answer;
  const { status, body } =
    settled instanceof Response
      ? { status: settled.status, body: (await settled.json()) as { code?: string } }
      : settled;
  return `${status} ${body.code}`;
}
