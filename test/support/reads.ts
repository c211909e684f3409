// Reading a page's comments the way a browser does, and waiting for a submission to appear there.
import assert from "node:assert/strict";
import { eventually } from "./harness.ts";
import { PROJECTION_GAP_CHECK } from "../../src/config/limits.ts";

/**
 * How soon a sent comment is listed even when the homeserver's push never brings it: the gap
 * check's grace, up to two of its intervals (a walk starts within one; one may be running), and
 * room for the walk itself.
 */
export const LISTED_WITHOUT_PUSH_MS = PROJECTION_GAP_CHECK.graceMs + 2 * PROJECTION_GAP_CHECK.intervalMs + 10_000;

/** A page of comments as the list read answers it. */
export interface CommentPage {
  data: any[];
  meta: any;
  /** The moderation extensions: pinned comments, closed, the viewer's pending comments. */
  pinned: any[];
  closed: boolean;
  pending: any[];
}

/**
 * QUERY /api/v1/sites/{site}/pages/{page}/comments with `body` (and extra `headers`), asserting
 * it is 200; the answer.
 */
export async function listComments(
  service: { url: string },
  siteId: string,
  page: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<CommentPage> {
  const res = await fetch(`${service.url}/api/v1/sites/${siteId}/pages/${page}/comments`, {
    method: "QUERY",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as CommentPage;
}

/**
 * Asserts `res` accepted a write (202) and waits until `list` shows its submission; the listed
 * message.
 */
export async function whenListed(res: Response, list: () => Promise<any[]>, what = "the submission"): Promise<any> {
  const text = await res.text();
  assert.equal(res.status, 202, text);
  const { submission_id } = JSON.parse(text) as { submission_id: string };
  return eventually(async () => (await list()).find((m) => m.submission_id === submission_id), 30_000, what);
}
