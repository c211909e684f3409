// The Matrix vocabulary the service speaks, named once (as Synapse's api/constants.py does): event
// types, relation types, message types and the content keys shared by the code that writes events
// and the code that reads them. Browser-safe: the SDK uses it too.

export const EventType = {
  Create: "m.room.create",
  Member: "m.room.member",
  PowerLevels: "m.room.power_levels",
  Name: "m.room.name",
  Topic: "m.room.topic",
  Avatar: "m.room.avatar",
  CanonicalAlias: "m.room.canonical_alias",
  HistoryVisibility: "m.room.history_visibility",
  Encryption: "m.room.encryption",
  PinnedEvents: "m.room.pinned_events",
  Tombstone: "m.room.tombstone",
  SpaceChild: "m.space.child",
  SpaceParent: "m.space.parent",
  /** MSC2545 sticker packs (state). */
  ImagePack: "m.room.image_pack",
  Message: "m.room.message",
  Sticker: "m.sticker",
  Encrypted: "m.room.encrypted",
  Redaction: "m.room.redaction",
  Reaction: "m.reaction",
  /** MSC3381 polls, stable and unstable. */
  PollStart: "m.poll.start",
  PollStartUnstable: "org.matrix.msc3381.poll.start",
  PollResponse: "m.poll.response",
  PollResponseUnstable: "org.matrix.msc3381.poll.response",
  /** Ephemeral (appservice receive_ephemeral). */
  Typing: "m.typing",
  Receipt: "m.receipt",
  Presence: "m.presence",
} as const;

export const RelType = {
  Replace: "m.replace",
  Annotation: "m.annotation",
  Reference: "m.reference",
  Thread: "m.thread",
} as const;

export const MsgType = {
  Text: "m.text",
  Notice: "m.notice",
  Emote: "m.emote",
  Image: "m.image",
  Video: "m.video",
  Audio: "m.audio",
  File: "m.file",
  Location: "m.location",
} as const;

/** Content keys shared by writers and readers. */
export const ContentKey = {
  RelatesTo: "m.relates_to",
  InReplyTo: "m.in_reply_to",
  NewContent: "m.new_content",
} as const;

/** The `format` of an HTML `formatted_body`. */
export const HTML_FORMAT = "org.matrix.custom.html";

/** The room type (creation content `type`) of a Space. */
export const SPACE_ROOM_TYPE = "m.space";

/** The HTML elements a formatted_body may use: the client-server specification's subset. */
export const MATRIX_HTML_TAGS = [
  "font",
  "del",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "blockquote",
  "p",
  "a",
  "ul",
  "ol",
  "sup",
  "sub",
  "li",
  "b",
  "i",
  "u",
  "strong",
  "em",
  "s",
  "strike",
  "code",
  "hr",
  "br",
  "div",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "caption",
  "pre",
  "span",
  "img",
  "details",
  "summary",
];
