// A comment's derived state (pure), computed from the stored events alone: the original plus
// every stored event relating to it. Recomputed whenever one of them arrives, so the result
// does not depend on the order (or the number of times) the events came in.
import { reactionKey } from "./annotations.ts";
import { asEdited, selectEdit } from "./edits.ts";
import { eventRelation, messageContent, relationsOf } from "./message-content.ts";
import { parsePoll, pollContent } from "./polls.ts";
import { byTimeline, obj, type RoomEvent } from "./room-event.ts";

export interface ReactionInForce {
  eventId: string;
  sender: string;
  key: string;
  originServerTs: number;
}

export interface CommentState {
  status: "published" | "edited" | "redacted";
  content: Record<string, unknown>;
  /** origin_server_ts of the edit in force. */
  editedAt: number | null;
  replyTo: string | null;
  threadRoot: string | null;
  reactions: ReactionInForce[];
  /** The redaction that made the comment a tombstone (its proof block names the delete submission). */
  redaction: RoomEvent | null;
}

export interface CommentEvents {
  original: RoomEvent;
  /** Stored events relating to the original: edits, reactions, votes. */
  related: RoomEvent[];
  /** Stored redactions of the original and of the related events. */
  redactions: RoomEvent[];
  /** Whether a redaction takes effect on its target (power levels). */
  takesEffect: (redaction: RoomEvent, target: RoomEvent) => boolean;
}

export function deriveCommentState({ original, related, redactions, takesEffect }: CommentEvents): CommentState {
  const redactionOf = (target: RoomEvent): RoomEvent | null => {
    // Events the homeserver delivers already redacted carry their redaction.
    const because = obj(target.unsigned?.redacted_because);
    if (because) return because as unknown as RoomEvent;
    const accepted = redactions.filter(
      (r) => eventRelation(r)?.relatesTo === target.event_id && takesEffect(r, target),
    );
    return accepted.sort(byTimeline)[0] ?? null;
  };
  const redaction = redactionOf(original);
  if (redaction) {
    return {
      status: "redacted",
      content: { type: "redacted" },
      editedAt: null,
      replyTo: null,
      threadRoot: null,
      reactions: [],
      redaction,
    };
  }
  const inForce = related.filter(
    (e) => e.room_id === original.room_id && eventRelation(e)?.relatesTo === original.event_id && !redactionOf(e),
  );
  const edit = selectEdit(original, inForce);
  const current = asEdited(original, edit);
  const poll = parsePoll(current);
  const { replyTo, threadRoot } = relationsOf(original.content);
  return {
    status: edit ? "edited" : "published",
    content: poll ? pollContent(poll, inForce) : messageContent(current),
    editedAt: edit?.origin_server_ts ?? null,
    replyTo,
    threadRoot,
    reactions: inForce.flatMap((e) => {
      const key = reactionKey(e);
      return key === null ? [] : [{ eventId: e.event_id, sender: e.sender, key, originServerTs: e.origin_server_ts }];
    }),
    redaction: null,
  };
}
