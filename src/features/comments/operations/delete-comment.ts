// DELETE …/comments/{comment_id}: the author redacts its own comment.
import { checkEventId } from "../comment-input.ts";
import { redactionContent } from "../../../matrix/events.ts";
import type { PageInput, VisitorOperation } from "../../../writes/operation.ts";

const fields = { commentId: "String!" } as const;
export type DeleteCommentInput = PageInput<typeof fields>;

/** The canonical array the author signs (the wire contract). */
export const deleteCommentArray = (siteId: string, pageSlug: string, commentId: string, challenge: string) => ["DELETE_COMMENT", siteId, pageSlug, commentId, challenge, 1];

export const deleteComment: VisitorOperation<DeleteCommentInput, { commentId: string }> = {
  mutation: "deleteComment",
  description: "Queues the redaction of the visitor's own comment.",
  level: "page",
  fields,
  kind: "comment.delete",
  answer: "submission",
  check(input, errors) {
    checkEventId("comment_id", input.commentId, errors);
    return { commentId: input.commentId };
  },
  signatureArray: (c, s) => deleteCommentArray(s.siteId, s.pageSlug, c.commentId, s.challenge),
  proofSubject: (c) => c.commentId,
  targets: (c) => [{ field: "comment_id", eventId: c.commentId, own: true }],
  effect: (c, s) => ({ action: "redact", roomId: s.targets.comment_id!.roomId, eventId: c.commentId, content: redactionContent(s.proof) }),
};
