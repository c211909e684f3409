// Comments in the read model (Comment and Reaction rows): each is recomputed from the event
// store whenever an event it depends on is applied (event-kinds.ts says which), and announced on
// the page's live stream only when what clients see has changed (so a repeated event announces
// nothing).
import type { Comment } from "../db/client.ts";
import { PROOF_KEY } from "../matrix/events.ts";
import { reactionSummaries, reactionTotal, storedSummaries } from "./annotations.ts";
import {
  changeReactions,
  commentRow,
  createComment,
  reactionRows,
  updateComment,
  type ReactionFields,
} from "./comment-store.ts";
import { deriveCommentState, type CommentState } from "./comment-state.ts";
import { loadEvent, relationsOf, roomRedactions, stateEvent, storedRelation } from "./matrix-event-store.ts";
import { eventRelation, isCommentEvent, malformation, proofOf } from "./message-content.ts";
import { membershipOf } from "./members.ts";
import { announce, commentChanged, type PageContext } from "./page-context.ts";
import { placeComment } from "./position-store.ts";
import { redactionTakesEffect } from "./redactions.ts";
import { COMMENT_REL_TYPES } from "./relations.ts";
import { obj, str, type RoomEvent } from "./room-event.ts";
import { virtualUserKey } from "./virtual-user-store.ts";
import { EventType } from "../contract/matrix-vocabulary.ts";

/**
 * The comments a redaction can change: its target, and the comment a redacted edit, reaction or
 * vote relates to; each once (an event may relate to itself), as recomputeComment requires.
 */
export async function commentsAffectedByRedaction(page: PageContext, redaction: RoomEvent): Promise<string[]> {
  const redacted = eventRelation(redaction)!.relatesTo;
  const target = await storedRelation(page.reads, redacted);
  return target?.relatesTo && target.relatesTo !== redacted && COMMENT_REL_TYPES.includes(target.relType ?? "")
    ? [redacted, target.relatesTo]
    : [redacted];
}

/**
 * Whether a redaction takes effect depends on the power levels in force when it was sent, which
 * may arrive after it: a power levels event re-decides every redaction of the room.
 */
export async function recomputeRedactionTargets(page: PageContext): Promise<void> {
  const targets = new Set<string>();
  for (const redaction of await roomRedactions(page.reads, page.room.roomId)) {
    for (const eventId of await commentsAffectedByRedaction(page, redaction)) targets.add(eventId);
  }
  for (const eventId of targets) await recomputeComment(page, eventId);
}

/**
 * Brings a comment's rows up to date with the store; nothing happens until its own event is
 * stored. `stored` is the comment's event as stored, when the caller holds it. Its rows are read
 * on the driver (committed ones): call it once per comment in an applying transaction.
 */
export async function recomputeComment(page: PageContext, eventId: string, stored?: RoomEvent): Promise<void> {
  const { tx, reads, room } = page;
  // Independent reads of committed rows, side by side (each its own round trip on PostgreSQL).
  const [original, relations, before, beforeReactions] = await Promise.all([
    stored ?? loadEvent(reads, eventId),
    relationsOf(reads, room.roomId, eventId, COMMENT_REL_TYPES),
    commentRow(reads, eventId),
    reactionRows(reads, eventId),
  ]);
  if (!original || original.room_id !== room.roomId || malformation(original) || !isCommentEvent(original)) return;
  const sound = (events: RoomEvent[]) => events.filter((e) => !malformation(e));
  const related = sound(relations.related);
  // Redactions of the comment and of its sound relations (the others count for nothing).
  const targets = new Set([eventId, ...related.map((e) => e.event_id)]);
  const redactions = sound(relations.redactions).filter((r) => targets.has(eventRelation(r)!.relatesTo));
  // Power levels in force when each redaction was sent: a later demotion does not undo it.
  const powerLevels = new Map(
    await Promise.all(
      redactions.map(
        async (redaction) =>
          [
            redaction.event_id,
            obj((await stateEvent(reads, room.roomId, EventType.PowerLevels, "", redaction))?.content),
          ] as const,
      ),
    ),
  );
  const state = deriveCommentState({
    original,
    related,
    redactions,
    takesEffect: (redaction, target) =>
      redactionTakesEffect(redaction, target, powerLevels.get(redaction.event_id) ?? null, page.names.botUserId),
  });

  const reactions = reactionSummaries(state.reactions, null);
  const fields = {
    status: state.status,
    content: JSON.stringify(state.content),
    editedAt: state.editedAt === null ? null : new Date(state.editedAt),
    redactedAt: state.redaction === null ? null : new Date(state.redaction.origin_server_ts),
    replyTo: state.replyTo,
    threadRoot: state.threadRoot,
    reactionSummary: storedSummaries(reactions),
    reactionCount: reactionTotal(reactions),
  };
  if (!before) {
    await createComment(tx, {
      eventId,
      roomId: room.roomId,
      siteId: room.siteId,
      pageSlug: room.pageSlug,
      sender: original.sender,
      originServerTs: BigInt(original.origin_server_ts),
      ...(await authorOf(page, original)),
      ...fields,
    });
    await placeComment(tx, {
      eventId,
      siteId: room.siteId,
      pageSlug: room.pageSlug,
      originServerTs: BigInt(original.origin_server_ts),
    });
  } else if (
    visible(before) !== visible(fields) ||
    before.content !== fields.content ||
    before.reactionSummary !== fields.reactionSummary
  ) {
    await updateComment(tx, eventId, fields);
  }
  // A visitor's comment projected before its key was known (a backfill reads a redacted
  // comment without its proof block) takes the key once the virtual user is recorded.
  if (before?.authorType === "visitor" && before.authorPublicKey === null) {
    const authorPublicKey = await virtualUserKey(reads, original.sender);
    if (authorPublicKey !== null) await updateComment(tx, eventId, { authorPublicKey });
  }
  await syncReactions(page, eventId, beforeReactions, state);

  if (!before) {
    await announce(page, "message_created", eventId);
    // A comment projected already deleted (a backfill) was never visible: nothing to tell.
    if (state.status !== "redacted") await commentChanged(page, "created", eventId, "");
    return;
  }
  if (state.status === "redacted") {
    if (before.status !== "redacted") {
      await announce(page, "message_deleted", eventId, deletedPayload(eventId, state.redaction));
      await commentChanged(page, "deleted", eventId, "");
    }
    return;
  }
  if (visible(before) !== visible(fields)) await announce(page, "message_updated", eventId);
  // An edit (a new newest m.replace) is a new revision; its time tells it from earlier ones.
  if (state.editedAt !== null && (before.editedAt?.getTime() ?? null) !== state.editedAt)
    await commentChanged(page, "edited", eventId, String(state.editedAt));
  const responses = pollResponses(state.content);
  if (
    JSON.stringify(reactions) !== JSON.stringify(reactionSummaries(beforeReactions, null)) ||
    JSON.stringify(responses) !== JSON.stringify(pollResponses(JSON.parse(before.content)))
  ) {
    await announce(page, "message_annotations_changed", eventId, {
      event_id: eventId,
      reactions,
      ...(responses ? { poll_responses: responses } : {}),
    });
  }
}

type Fields = Pick<Comment, "status" | "content" | "editedAt" | "replyTo" | "threadRoot">;

/** What a message_updated is about: everything but the annotation counts (poll responses). */
function visible(c: Fields): string {
  const { responses: _, ...content } = JSON.parse(c.content) as Record<string, unknown>;
  return JSON.stringify([c.status, content, c.editedAt?.getTime() ?? null, c.replyTo, c.threadRoot]);
}

const pollResponses = (content: Record<string, unknown>): unknown[] | null =>
  content.type === "poll" ? (content.responses as unknown[]) : null;

/** message_deleted names the delete submission when the service sent the redaction. */
function deletedPayload(eventId: string, redaction: RoomEvent | null): Record<string, unknown> {
  const submissionId = str(obj(obj(redaction?.content)?.[PROOF_KEY])?.submission_id);
  return { event_id: eventId, ...(submissionId ? { submission_id: submissionId } : {}) };
}

/** Makes the comment's Reaction rows the reactions in force. */
async function syncReactions(
  page: PageContext,
  targetEventId: string,
  before: ReactionFields[],
  state: CommentState,
): Promise<void> {
  const wanted = new Set(state.reactions.map((r) => r.eventId));
  const had = new Set(before.map((r) => r.eventId));
  const gone = before.filter((r) => !wanted.has(r.eventId)).map((r) => r.eventId);
  const added = state.reactions
    .filter((r) => !had.has(r.eventId))
    .map((r) => ({
      eventId: r.eventId,
      targetEventId,
      roomId: page.room.roomId,
      sender: r.sender,
      key: r.key,
      originServerTs: BigInt(r.originServerTs),
    }));
  await changeReactions(page.tx, gone, added);
}

/**
 * Who wrote the comment, with the profile in force when it was sent (read from the store, so a
 * rebuild captures the same): the fallback shown once the author has left the room. A visitor is
 * recognized by its namespace and a proof block whose key derives the sender's user id; only this
 * service can send as those users (exclusive namespace).
 */
async function authorOf(page: PageContext, event: RoomEvent) {
  const visitor = page.names.isVisitorUserId(event.sender);
  const [member, known] = await Promise.all([
    stateEvent(page.reads, page.room.roomId, EventType.Member, event.sender, event),
    visitor ? virtualUserKey(page.reads, event.sender) : null,
  ]);
  const { displayName, avatarUrl } = membershipOf(member);
  const profile = { displayName, avatarUrl };
  if (!visitor) return { authorType: "matrix", authorPublicKey: null, submissionId: null, ...profile };
  const proof = proofOf(event.content);
  const derived =
    proof && page.names.visitorUserId(page.room.siteId, Buffer.from(proof.public_key, "base64url")) === event.sender
      ? proof.public_key
      : null;
  return {
    authorType: "visitor",
    authorPublicKey: known ?? derived,
    submissionId: proof?.submission_id ?? null,
    ...profile,
  };
}
