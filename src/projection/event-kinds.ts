// Every kind of Matrix event the service understands, and what projecting one does: the table
// the projector dispatches through. Any other event (m.room.create, join
// rules, calls, a non-comment event in a thread, …) is kept in the event store
// (matrix-event-store.ts) and projects nothing until a kind is added here (npm run rebuild then
// projects the history too). Handlers recompute from the store, so events may come in any order
// and any number of times.
import type { Tx } from "../db/client.ts";
import { commentsAffectedByRedaction, recomputeComment, recomputeRedactionTargets } from "./comments.ts";
import type { EphemeralEvent, EphemeralProjector } from "./ephemeral.ts";
import { projectMember } from "./members.ts";
import { COMMENT_RELATIONS, REDACTION_REL } from "./relations.ts";
import { eventRelation, isCommentEvent } from "./message-content.ts";
import type { PageContext } from "./page-context.ts";
import { applyRoomState } from "./room-state-store.ts";
import { announcePins } from "./pins.ts";
import { projectSiteBan } from "./site-bans.ts";
import type { RoomEvent } from "./room-event.ts";
import { EventType } from "../contract/matrix-vocabulary.ts";

export interface RoomEventKind {
  /** The event type, or for relations the rel_type (any event type carrying it). */
  kind: string;
  matches: (event: RoomEvent) => boolean;
  /** What the service makes of it. */
  effect: string;
  /** Applies it in any projected room: a page room or a site's Space. */
  inAnyRoom?: (tx: Tx, event: RoomEvent) => Promise<void>;
  /** Applies it in a page room. */
  inPageRoom?: (page: PageContext, event: RoomEvent) => Promise<void>;
  /** The room that replaces a page room (a tombstone): announced to the projector's onRoomReplaced once applied. */
  successor?: (event: RoomEvent) => string | null;
}

type Match = Pick<RoomEventKind, "kind" | "matches">;

/** A state event (state_key set) of the type. */
const state = (type: string): Match => ({
  kind: type,
  matches: (event) => event.state_key !== undefined && event.type === type,
});
/** A timeline event of the type that is a comment itself: not an edit (edits.ts), whatever else it relates to. */
const comment = (type: string): Match => ({
  kind: type,
  matches: (event) => isCommentEvent(event) && event.type === type,
});
/** A timeline event that is no comment, relating to another event by `relType`, whatever its type. */
const relation = (relType: string): Match => ({
  kind: relType,
  matches: (event) =>
    event.state_key === undefined && !isCommentEvent(event) && eventRelation(event)?.relType === relType,
});

const recomputeItself = (page: PageContext, event: RoomEvent) => recomputeComment(page, event.event_id, event);
const recomputeTarget = (page: PageContext, event: RoomEvent) =>
  recomputeComment(page, eventRelation(event)!.relatesTo);

const CURRENT_STATE = "The room's current state of the kind (RoomState; the newest by origin_server_ts, then event id)";

/** First match wins. */
export const ROOM_EVENT_KINDS: readonly RoomEventKind[] = [
  // Room state (state_key set).
  {
    ...state(EventType.Tombstone),
    effect:
      "In a page room: the room is replaced (an upgrade, also one done by hand in a Matrix client); the rooms feature adopts the replacement named by replacement_room.",
    successor: (event) =>
      event.state_key === "" && typeof event.content?.replacement_room === "string"
        ? event.content.replacement_room
        : null,
  },
  { ...state(EventType.Name), effect: `${CURRENT_STATE}: the room's name (room info).`, inAnyRoom: applyRoomState },
  { ...state(EventType.Topic), effect: `${CURRENT_STATE}: the room's topic (room info).`, inAnyRoom: applyRoomState },
  { ...state(EventType.Avatar), effect: `${CURRENT_STATE}: the room's avatar (room info).`, inAnyRoom: applyRoomState },
  {
    ...state(EventType.ImagePack),
    effect: `${CURRENT_STATE}: a sticker pack (MSC2545; on a site's Space, state key = pack id).`,
    inAnyRoom: applyRoomState,
  },
  {
    ...state(EventType.PowerLevels),
    effect: `${CURRENT_STATE}: the role rosters. In a page room it also re-decides every redaction, which takes effect by the levels in force when it was sent.`,
    inAnyRoom: applyRoomState,
    inPageRoom: recomputeRedactionTargets,
  },
  {
    ...state(EventType.PinnedEvents),
    effect: `${CURRENT_STATE}: a page's pinned comments (reads list them first, as \`pinned\`); in a page room, pins_changed {pinned}.`,
    inAnyRoom: applyRoomState,
    inPageRoom: announcePins,
  },
  {
    ...state(EventType.Member),
    effect:
      "A page room member's membership and profile (RoomMember; the newest member event of the user wins); a profile change is message_updated on the author's comments. In a site's Space or page room, a ban records the user in the site's bans (SiteBan; site-bans.ts) and an unban lifts it.",
    inAnyRoom: projectSiteBan,
    inPageRoom: (page, event) => projectMember(page, event.state_key!),
  },
  // Comments (in page rooms): a Comment row placed in its page's list (position-store.ts), message_created.
  {
    ...comment(EventType.Message),
    effect:
      "A comment; content by msgtype: m.text, m.notice, m.emote → text; m.image, m.video, m.audio, m.file → media; m.location → location (MSC3488); org.matrix.msc3381.poll.start → poll; any other → unknown.",
    inPageRoom: recomputeItself,
  },
  {
    ...comment(EventType.Sticker),
    effect: "A comment with media content of kind sticker.",
    inPageRoom: recomputeItself,
  },
  { ...comment(EventType.PollStart), effect: "A poll comment (MSC3381, stable).", inPageRoom: recomputeItself },
  {
    ...comment(EventType.PollStartUnstable),
    effect: "A poll comment (MSC3381, unstable).",
    inPageRoom: recomputeItself,
  },
  {
    ...comment(EventType.Encrypted),
    effect: "A comment the service cannot read: encrypted content (algorithm, sender key).",
    inPageRoom: recomputeItself,
  },
  // Relations (in page rooms): the comment they point at is recomputed (comment-state.ts).
  ...COMMENT_RELATIONS.map(({ relType, effect }) => ({ ...relation(relType), effect, inPageRoom: recomputeTarget })),
  {
    ...relation(REDACTION_REL),
    effect:
      "m.room.redaction (redacts in content or, before room v11, on the event): if its sender may redact (redactions.ts), a redacted comment becomes a tombstone (message_deleted) and a redacted edit, reaction or vote no longer counts.",
    inPageRoom: async (page, event) => {
      for (const eventId of await commentsAffectedByRedaction(page, event)) await recomputeComment(page, eventId);
    },
  },
];

/** The kind of a room event, or null when the service does not project it. */
export const roomEventKind = (event: RoomEvent): RoomEventKind | null =>
  ROOM_EVENT_KINDS.find((k) => k.matches(event)) ?? null;

export interface EphemeralKind {
  type: string;
  effect: string;
  apply: (ephemeral: EphemeralProjector, event: EphemeralEvent) => Promise<void>;
}

/** Ephemeral data (receive_ephemeral), each an `ephemeral` live event of the page rooms concerned (ephemeral.ts). */
export const EPHEMERAL_KINDS: readonly EphemeralKind[] = [
  {
    type: EventType.Typing,
    effect: "Who is typing in a page room (RoomTyping, the snapshot a live stream starts with): {kind: typing}.",
    apply: (p, e) => p.typing(e),
  },
  {
    type: EventType.Receipt,
    effect: "Read receipts in a page room, one {kind: receipt} per user and event.",
    apply: (p, e) => p.receipts(e),
  },
  {
    type: EventType.Presence,
    effect: "A user's presence, to every page room the user has joined: {kind: presence}.",
    apply: (p, e) => p.presence(e),
  },
];

export const ephemeralKind = (event: EphemeralEvent): EphemeralKind | null =>
  EPHEMERAL_KINDS.find((k) => k.type === event.type) ?? null;
