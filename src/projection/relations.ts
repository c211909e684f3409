// The relations that change the comment they point at, declared once: the event-kind table
// (event-kinds.ts) makes a kind of each, the comment recompute reads them with the comment
// (comments.ts), and the event store indexes them, with a thread's (message-content.ts).
import { RelType } from "../contract/matrix-vocabulary.ts";

export const COMMENT_RELATIONS = [
  {
    relType: RelType.Replace,
    effect:
      "An edit: the comment shows its newest valid edit's m.new_content (edits.ts); status edited, message_updated.",
  },
  {
    relType: RelType.Annotation,
    effect:
      "m.reaction: a reaction in force on the comment (annotations.ts; Reaction rows, counted per key and sender), message_annotations_changed.",
  },
  {
    relType: RelType.Reference,
    effect:
      "m.poll.response / org.matrix.msc3381.poll.response: a vote, each sender's newest valid one counted in the poll's responses (polls.ts), message_annotations_changed. m.poll.end (either shape) is stored and changes nothing: polls do not close.",
  },
] as const;

/** Relations that change the comment they point at: edits, reactions, votes. */
export const COMMENT_REL_TYPES: readonly string[] = COMMENT_RELATIONS.map((r) => r.relType);

/** The relations the event store indexes events by: those, and a thread's (its comments relate to the root). */
export const STORED_REL_TYPES: ReadonlySet<string> = new Set([...COMMENT_REL_TYPES, RelType.Thread]);

/** The event store indexes a redaction by the event it redacts under this relation (the service's, not a Matrix rel_type). */
export const REDACTION_REL = "m.redaction";
