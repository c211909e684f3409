// Turning Matrix room events into the API's semantic types (pure).
import type { MediaContent, MessageContent } from "../contract/message-content.ts";
import { PROOF_KEY } from "../matrix/events.ts";
import type { ProofBlock } from "../matrix/events.ts";
import { isEdit } from "./edits.ts";
import { REDACTION_REL, STORED_REL_TYPES } from "./relations.ts";
import { parsePoll, pollContent, POLL_START_TYPES } from "./polls.ts";
import { num, obj, str, type RoomEvent } from "./room-event.ts";
import { ContentKey, EventType, MsgType, RelType } from "../contract/matrix-vocabulary.ts";

/** Re-exported: the appservice endpoint knows the event type by this module. */
export type { RoomEvent };

const MEDIA_KINDS: Record<string, MediaContent["kind"]> = {
  [MsgType.Image]: "image",
  [MsgType.Video]: "video",
  [MsgType.Audio]: "audio",
  [MsgType.File]: "file",
};

/** The typed `content` object of a Message, from one event's content (edits and redactions aside). */
export function messageContent(event: RoomEvent): MessageContent {
  const c = event.content;
  if (event.type === EventType.Encrypted) {
    return { type: "encrypted", algorithm: str(c.algorithm), sender_key: str(c.sender_key) };
  }
  if (event.type === EventType.Sticker) return mediaContent("sticker", c);
  const poll = parsePoll(event);
  if (poll) return pollContent(poll, []);
  const msgtype = str(c.msgtype);
  if (msgtype === MsgType.Text || msgtype === MsgType.Notice || msgtype === MsgType.Emote) {
    return {
      type: "text",
      body: str(c.body) ?? "",
      format: str(c.format),
      formatted_body: str(c.formatted_body),
    };
  }
  if (msgtype && MEDIA_KINDS[msgtype]) return mediaContent(MEDIA_KINDS[msgtype]!, c);
  if (msgtype === MsgType.Location) {
    // MSC3488's location block is the structured form; geo_uri and body are its fallback.
    const block = obj(c["m.location"]) ?? obj(c["org.matrix.msc3488.location"]);
    const info = obj(c.info) ?? {};
    return {
      type: "location",
      geo_uri: str(block?.uri) ?? str(c.geo_uri),
      description: str(block?.description) ?? str(c.body),
      thumbnail_url: str(info.thumbnail_url),
    };
  }
  return { type: "unknown", fallback: str(c.body), raw: withoutProof(c) };
}

function mediaContent(kind: MediaContent["kind"], c: Record<string, unknown>): MediaContent {
  const info = obj(c.info) ?? {};
  return {
    type: "media",
    kind,
    url: str(c.url),
    filename: str(c.filename) ?? str(c.body),
    mimetype: str(info.mimetype),
    size: num(info.size),
    width: num(info.w),
    height: num(info.h),
    thumbnail_url: str(info.thumbnail_url),
    alt_text: str(c.filename) ? str(c.body) : null,
    voice: "org.matrix.msc3245.voice" in c,
  };
}

function withoutProof(content: Record<string, unknown>): Record<string, unknown> {
  const { [PROOF_KEY]: _, ...rest } = content;
  return rest;
}

export interface Relations {
  replyTo: string | null;
  threadRoot: string | null;
  /** The event this one edits, if it is an edit (edits.ts). */
  replaces: string | null;
}

export function relationsOf(content: Record<string, unknown>): Relations {
  const rel = obj(content[ContentKey.RelatesTo]) ?? {};
  const inReplyTo = str(obj(rel[ContentKey.InReplyTo])?.event_id);
  const target = str(rel.event_id);
  if (isEdit(content)) return { replyTo: null, threadRoot: null, replaces: target };
  if (str(rel.rel_type) === RelType.Thread) {
    return { replyTo: rel.is_falling_back === true ? null : inReplyTo, threadRoot: target, replaces: null };
  }
  return { replyTo: inReplyTo, threadRoot: null, replaces: null };
}

/** The relation the event store indexes an event by: what it points at, and how. */
export interface EventRelation {
  /** One of STORED_REL_TYPES, or REDACTION_REL for redactions (relations.ts). */
  relType: string;
  relatesTo: string;
}

/** Tolerates any shape: the store indexes events before they are checked. */
export function eventRelation(event: Pick<RoomEvent, "type" | "content" | "redacts">): EventRelation | null {
  const content = obj(event.content) ?? {};
  if (event.type === EventType.Redaction) {
    const redacted = str(content.redacts) ?? str(event.redacts);
    return redacted ? { relType: REDACTION_REL, relatesTo: redacted } : null;
  }
  const rel = obj(content[ContentKey.RelatesTo]);
  const relType = str(rel?.rel_type);
  const relatesTo = str(rel?.event_id);
  return relType && relatesTo && STORED_REL_TYPES.has(relType) ? { relType, relatesTo } : null;
}

/** The proof block of a service-sent event, if it is well formed. */
export function proofOf(content: Record<string, unknown>): ProofBlock | null {
  const p = obj(content[PROOF_KEY]);
  if (!p) return null;
  const fields = ["public_key", "signature", "challenge", "content", "submission_id"] as const;
  return fields.every((f) => typeof p[f] === "string") ? (p as unknown as ProofBlock) : null;
}

const COMMENT_TYPES: ReadonlySet<string> = new Set([
  EventType.Message,
  EventType.Sticker,
  EventType.Encrypted,
  ...POLL_START_TYPES,
]);

/** Events that are comments: messages, stickers, polls and (undecryptable) encrypted messages; edits are not. */
export const isCommentEvent = (event: RoomEvent): boolean =>
  event.state_key === undefined && COMMENT_TYPES.has(event.type) && relationsOf(event.content).replaces === null;

/**
 * Why an event cannot be projected at all, or null when its shape is sound. Such an event is
 * stored and recorded for repair instead of applied.
 */
export function malformation(event: RoomEvent): string | null {
  if (typeof event.sender !== "string") return "sender is not a string";
  if (typeof event.type !== "string") return "type is not a string";
  if (!obj(event.content)) return "content is not an object";
  if (!Number.isSafeInteger(event.origin_server_ts)) return "origin_server_ts is not a timestamp";
  if (event.state_key !== undefined && typeof event.state_key !== "string") return "state_key is not a string";
  return null;
}
