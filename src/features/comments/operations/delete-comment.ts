// DELETE …/comments/{comment_id}: the author redacts its own comment.
import { signatureArrays } from "../../../contract/signatures.ts";
import { checkEventId } from "../comment-input.ts";
import { redactionContent } from "../../../matrix/events.ts";
import type { PageInput, VisitorOperation } from "../../../writes/operation.ts";

const fields = { commentId: "String!" } as const;
export type DeleteCommentInput = PageInput<typeof fields>;

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
  signatureArray: (c, s) => signatureArrays.deleteComment(s.siteId, s.pageSlug, c.commentId, s.challenge),
  proofSubject: (c) => c.commentId,
  targets: (c) => [{ field: "comment_id", eventId: c.commentId, own: true }],
  effect: (c, s) => ({
    action: "redact",
    roomId: s.targets.comment_id!.roomId,
    eventId: c.commentId,
    content: redactionContent(s.proof),
  }),
};
