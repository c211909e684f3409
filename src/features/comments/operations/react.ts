// POST …/comments/{comment_id}/reactions: an m.reaction from the visitor (204, idempotent:
// a duplicate annotation is a success).
import { signatureArrays } from "../../../contract/signatures.ts";
import { checkEventId, normalizeReactionKey } from "../comment-input.ts";
import { PROOF_KEY, type Content } from "../../../matrix/events.ts";
import type { ProofBlock } from "../../../matrix/events.ts";
import type { PageInput, VisitorOperation } from "../../../writes/operation.ts";
import { ContentKey, EventType, RelType } from "../../../contract/matrix-vocabulary.ts";

/** A reaction's fields (react and unreact). */
export const reactionFields = { commentId: "String!", key: "String!" } as const;
export type ReactionInput = PageInput<typeof reactionFields>;

interface Checked {
  commentId: string;
  /** The key as sent: what the visitor signed. */
  signedKey: string;
  /** Trimmed: what Matrix gets. */
  key: string;
}

export const checkReaction = (
  input: ReactionInput,
  errors: Parameters<VisitorOperation<ReactionInput, Checked>["check"]>[1],
): Checked => {
  checkEventId("comment_id", input.commentId, errors);
  return { commentId: input.commentId, signedKey: input.key, key: normalizeReactionKey(input.key, errors) };
};

export function reactionContent(targetEventId: string, key: string, proof: ProofBlock): Content {
  return { [ContentKey.RelatesTo]: { rel_type: RelType.Annotation, event_id: targetEventId, key }, [PROOF_KEY]: proof };
}

export const react: VisitorOperation<ReactionInput, Checked> = {
  mutation: "react",
  description: "Queues a reaction (m.reaction) on a comment.",
  level: "page",
  fields: reactionFields,
  kind: "reaction.add",
  answer: "no-content",
  check: checkReaction,
  signatureArray: (c, s) => signatureArrays.react(s.siteId, s.pageSlug, c.commentId, c.signedKey, s.challenge),
  proofSubject: (c) => c.key,
  targets: (c) => [{ field: "comment_id", eventId: c.commentId }],
  effect: (c, s) => ({
    action: "send",
    roomId: s.targets.comment_id!.roomId,
    type: EventType.Reaction,
    content: reactionContent(c.commentId, c.key, s.proof),
  }),
};
