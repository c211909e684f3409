// DELETE …/comments/{comment_id}/reactions/{key}: redacts the visitor's own annotation with
// that key (204, also when there is none).
import { signatureArrays } from "../../../contract/signatures.ts";
import { redactionContent } from "../../../matrix/events.ts";
import type { VisitorOperation } from "../../../writes/operation.ts";
import { checkReaction, reactionFields, type ReactionInput } from "./react.ts";

export const unreact: VisitorOperation<ReactionInput, ReturnType<typeof checkReaction>> = {
  mutation: "unreact",
  description: "Queues the removal of the visitor's reaction with that key.",
  level: "page",
  fields: reactionFields,
  kind: "reaction.remove",
  answer: "no-content",
  check: checkReaction,
  signatureArray: (c, s) => signatureArrays.unreact(s.siteId, s.pageSlug, c.commentId, c.signedKey, s.challenge),
  proofSubject: (c) => c.key,
  targets: (c) => [{ field: "comment_id", eventId: c.commentId, allowRedacted: true }],
  effect: (c, s) => ({
    action: "unreact",
    roomId: s.targets.comment_id!.roomId,
    targetEventId: c.commentId,
    key: c.key,
    content: redactionContent(s.proof),
  }),
};
