// Turning Matrix room events into the API's semantic types (pure).
import { PROOF_KEY } from "../matrix/events.ts";
import type { ProofBlock } from "../queue/payloads.ts";

export interface RoomEvent {
  event_id: string;
  room_id: string;
  sender: string;
  type: string;
  origin_server_ts: number;
  content: Record<string, unknown>;
  state_key?: string;
  unsigned?: Record<string, unknown>;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

const MEDIA_KINDS: Record<string, string> = { "m.image": "image", "m.video": "video", "m.audio": "audio", "m.file": "file" };

/** The typed `content` object of a Message. */
export function messageContent(event: RoomEvent): Record<string, unknown> {
  const c = event.content;
  if (event.type === "m.room.encrypted") {
    return { type: "encrypted", algorithm: str(c.algorithm), sender_key: str(c.sender_key) };
  }
  if (event.type === "m.sticker") return mediaContent("sticker", c);
  const msgtype = str(c.msgtype);
  if (msgtype === "m.text" || msgtype === "m.notice" || msgtype === "m.emote") {
    return {
      type: "text",
      body: str(c.body) ?? "",
      format: str(c.format),
      formatted_body: str(c.formatted_body),
    };
  }
  if (msgtype && MEDIA_KINDS[msgtype]) return mediaContent(MEDIA_KINDS[msgtype]!, c);
  if (msgtype === "m.location") {
    const info = (c.info ?? {}) as Record<string, unknown>;
    return { type: "location", geo_uri: str(c.geo_uri), description: str(c.body), thumbnail_url: str(info.thumbnail_url) };
  }
  return { type: "unknown", fallback: str(c.body), raw: withoutProof(c) };
}

function mediaContent(kind: string, c: Record<string, unknown>): Record<string, unknown> {
  const info = (c.info ?? {}) as Record<string, unknown>;
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
  /** The event this one edits (m.replace), if it is an edit. */
  replaces: string | null;
}

export function relationsOf(content: Record<string, unknown>): Relations {
  const rel = (content["m.relates_to"] ?? {}) as Record<string, unknown>;
  const inReplyTo = str(((rel["m.in_reply_to"] ?? {}) as Record<string, unknown>).event_id);
  const relType = str(rel.rel_type);
  const target = str(rel.event_id);
  if (relType === "m.replace") return { replyTo: null, threadRoot: null, replaces: target };
  if (relType === "m.thread") {
    return { replyTo: rel.is_falling_back === true ? null : inReplyTo, threadRoot: target, replaces: null };
  }
  return { replyTo: inReplyTo, threadRoot: null, replaces: null };
}

/** The proof block of a service-sent event, if it is well formed. */
export function proofOf(content: Record<string, unknown>): ProofBlock | null {
  const p = content[PROOF_KEY] as Record<string, unknown> | undefined;
  if (!p || typeof p !== "object") return null;
  const fields = ["public_key", "signature", "challenge", "content", "submission_id"] as const;
  return fields.every((f) => typeof p[f] === "string") ? (p as unknown as ProofBlock) : null;
}

/** Events that are comments: messages, stickers and (undecryptable) encrypted messages. */
export const isCommentEvent = (event: RoomEvent): boolean =>
  event.state_key === undefined && (event.type === "m.room.message" || event.type === "m.sticker" || event.type === "m.room.encrypted");
