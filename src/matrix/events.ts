// The Matrix event content the service writes for visitor comments.
import type { CommentPostPayload } from "../queue/payloads.ts";

/** Key of the signed proof block in events the service sends for visitors. */
export const PROOF_KEY = "service.proof";

export function commentMessageContent(payload: CommentPostPayload): Record<string, unknown> {
  const content: Record<string, unknown> = { msgtype: "m.text", body: payload.body, [PROOF_KEY]: payload.proof };
  const relates = relatesTo(payload.replyTo, payload.threadRoot);
  if (relates) content["m.relates_to"] = relates;
  return content;
}

/** m.relates_to for a reply and/or a thread (Matrix threads carry a reply fallback). */
export function relatesTo(replyTo: string | null, threadRoot: string | null): Record<string, unknown> | null {
  if (threadRoot) {
    return {
      rel_type: "m.thread",
      event_id: threadRoot,
      is_falling_back: replyTo === null,
      "m.in_reply_to": { event_id: replyTo ?? threadRoot },
    };
  }
  return replyTo ? { "m.in_reply_to": { event_id: replyTo } } : null;
}

/** The Matrix transaction id of a submission's event: stable, so a resend after a crash dedupes. */
export const submissionTxnId = (submissionId: string): string => `submission.${submissionId}`;
