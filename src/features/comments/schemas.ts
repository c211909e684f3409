// The comment shapes of the REST surface: the Message as the API returns it (its JSON Schema is the
// one declaration its TypeScript type, its GraphQL selection and its wire form derive from), and
// the bodies of the comment reads and visitor writes (reactions, polls and locations included).
import { authorProof, components as sharedComponents, nullableString, paginationProperties, proofBody, ref, type JSONSchema, type WireOf } from "../../rest/schemas.ts";
import { selectionOf } from "../../rest/wire.ts";
import { GRAPHQL_INT } from "../../rest/graphql-int.ts";

const eventId = { type: ["string", "null"], description: "A Matrix event id, or null." } as const;
const displayName = { type: ["string", "null"], description: "Written to the visitor's Matrix profile; not signed (1-50 grapheme clusters and at most 256 code points, the homeserver's limit)." } as const;

export const components = {
  Author: {
    type: "object",
    required: ["type", "display_name", "avatar_url"],
    properties: {
      type: { enum: ["visitor", "matrix"] },
      public_key: { type: "string", description: "Visitors only." },
      mxid: { type: "string", description: "Matrix authors only." },
      display_name: nullableString,
      avatar_url: { type: ["string", "null"], description: "A signed media proxy URL (96x96 crop); the mxc:// URL when the proxy is disabled (media.proxy_enabled)." },
    },
  },
  ReactionSummary: {
    type: "object",
    required: ["key", "count", "mine"],
    properties: { key: { type: "string" }, count: { type: "integer" }, mine: { type: "boolean" } },
  },
  Message: {
    type: "object",
    required: ["event_id", "room_id", "status", "created_at", "origin_server_ts", "edited_at", "reply_to", "thread_root", "content", "author", "reactions"],
    properties: {
      event_id: { type: "string" },
      submission_id: { type: "string", description: "Present only for comments submitted through the API." },
      room_id: { type: "string" },
      status: { enum: ["published", "edited", "redacted"] },
      created_at: { type: "string", format: "date-time" },
      origin_server_ts: { type: "integer" },
      edited_at: { type: ["string", "null"], format: "date-time" },
      reply_to: nullableString,
      thread_root: nullableString,
      content: {
        type: "object",
        required: ["type"],
        description:
          "Typed content: text {body, format, formatted_body}, media, location, poll, redacted, encrypted or unknown. With the media proxy enabled (media.proxy_enabled), a media variant's `url` is a signed proxy URL of the original and its `thumbnail_url` one of a 320x240 scale thumbnail (for a png, jpeg, gif or webp image without its own thumbnail, a thumbnail of the image itself), as is a location's `thumbnail_url`; references to another server's media stay mxc://, and a reference that is not an mxc:// URL is null. With the proxy disabled they are the raw mxc:// URLs.",
        properties: { type: { enum: ["text", "media", "location", "poll", "redacted", "encrypted", "unknown"] } },
      },
      author: ref("Author"),
      reactions: { type: "array", items: ref("ReactionSummary") },
    },
  },
  MessagePage: {
    type: "object",
    required: ["data", "meta"],
    properties: { data: { type: "array", items: ref("Message") }, meta: ref("PaginationMeta") },
  },
} as const satisfies Record<string, JSONSchema>;

/** A comment as the API sends it: in list pages and as the payload of live events. */
export type WireMessage = WireOf<typeof components.Message, typeof components>;
export type MessagePageBody = WireOf<typeof components.MessagePage, typeof components & typeof sharedComponents>;

/** The GraphQL fragment selecting a Message's wire members (snake_case aliases). */
export const MESSAGE_FIELDS = `
fragment MessageFields on Message { ${selectionOf(components.Message, components)} }`;

/** `T` with the members `K` null where the wire omits them. */
type NullFor<T, K extends keyof T> = { [P in keyof T]: P extends K ? Exclude<T[P], undefined> | null : T[P] };

/** A Message as MESSAGE_FIELDS selects it: the members the wire omits are null there. */
type SelectedMessage = { [P in keyof WireMessage]: P extends "author" ? NullFor<WireMessage["author"], "public_key" | "mxid"> : NullFor<WireMessage, "submission_id">[P] };

/**
 * The wire form: submission_id only for API submissions; public_key for visitors, mxid for Matrix
 * authors. Made in place (the message is its operation's own result): a member set to undefined
 * is left out of the JSON, and the objects keep their shapes, which serialize faster than copies.
 */
export function toWireMessage(message: SelectedMessage): WireMessage {
  const wire = message as unknown as WireMessage;
  const author = message.author;
  if (!message.submission_id) wire.submission_id = undefined;
  // A visitor's comment always has its key and a Matrix author's its mxid (the projection sets them).
  if (author.type === "visitor") wire.author.mxid = undefined;
  else wire.author.public_key = undefined;
  if (author.public_key === null) wire.author.public_key = undefined;
  if (author.mxid === null) wire.author.mxid = undefined;
  return wire;
}

export const requestBodies = {
  listComments: {
    type: "object",
    additionalProperties: false,
    properties: {
      ...paginationProperties,
      order: { enum: ["asc", "desc"], default: "asc" },
      author_public_key: authorProof.author_public_key,
      author_signature: { type: "string", description: 'Personalization: signature over ["QUERY_COMMENTS", site_id, page_slug].' },
    },
  },
  postComment: {
    type: "object",
    additionalProperties: false,
    required: ["author_public_key", "author_signature", "challenge_response"],
    properties: {
      content: { type: "string", description: "The comment text (1-10000 grapheme clusters); required without media. With an upload it is the caption (the event's body; the filename when absent); with a sticker it is ignored (the pack's description is used). Not signed when media is present." },
      media: {
        type: ["object", "null"],
        description:
          "A media comment: either the result of a visitor media upload (its url must be an upload of this visitor key for this site: 404 media-not-found otherwise; type, size, dimensions and voice come from the upload), or a sticker reference {kind: \"sticker\", url} whose url is an image of one of the site's sticker packs (404 sticker-not-found otherwise). The signature covers media.url in place of content.",
        required: ["url"],
        additionalProperties: false,
        properties: {
          kind: { enum: ["image", "video", "audio", "file", "sticker"], description: "sticker for a pack image; otherwise informative (the upload's type decides)." },
          url: { type: "string", pattern: "^mxc://", description: "The upload's (or the pack image's) mxc:// URL." },
          filename: nullableString,
          mimetype: { type: "string" },
          size: { type: "integer", ...GRAPHQL_INT },
          voice: { type: "boolean", description: "true sends an audio upload as a voice message (MSC3245), as voice=true on the upload does." },
        },
      },
      display_name: displayName,
      reply_to: eventId,
      thread_root: eventId,
      ...authorProof,
    },
  },
  editComment: proofBody({ content: { type: "string", description: "The new text (1-10000 grapheme clusters)." } }, ["content"]),
  editCommentByBody: proofBody(
    { comment_id: { type: "string", description: "The comment to edit." }, content: { type: "string", description: "The new text (1-10000 grapheme clusters)." } },
    ["comment_id", "content"],
  ),
  deleteComment: proofBody({}, []),
  react: proofBody({ key: { type: "string", description: "The reaction key (an emoji): trimmed by the service, then 1-32 grapheme clusters, no control characters." } }, ["key"]),
  unreact: proofBody({}, []),
  createPoll: proofBody(
    {
      question: { type: "string", description: "1-500 grapheme clusters, no leading/trailing whitespace, no control characters." },
      options: { type: "array", minItems: 2, maxItems: 20, items: { type: "string" }, description: "2-20 options, each 1-200 grapheme clusters; answer ids are \"0\", \"1\", … in this order." },
      max_selections: { type: ["integer", "null"], ...GRAPHQL_INT, description: "Only 1 is accepted (the default)." },
      display_name: displayName,
      reply_to: eventId,
      thread_root: eventId,
    },
    ["question", "options"],
  ),
  vote: proofBody({ option_id: { type: "string", description: 'The answer id: "0", "1", … in option order.' } }, ["option_id"]),
  postLocation: proofBody(
    {
      geo_uri: { type: "string", description: "A geo URI (RFC 5870, WGS-84), e.g. geo:48.2010,16.3695;u=35." },
      description: { type: ["string", "null"], description: "Optional text shown with the location (1-1000 grapheme clusters)." },
      display_name: displayName,
      reply_to: eventId,
      thread_root: eventId,
    },
    ["geo_uri"],
  ),
} as const satisfies Record<string, JSONSchema>;

export const pathParams = {
  comment_id: { type: "string", minLength: 1, description: "A comment's Matrix event id, percent-encoded (room v3+ ids may contain /)." },
  poll_id: { type: "string", minLength: 1, description: "The poll comment's Matrix event id, percent-encoded." },
  key: { type: "string", minLength: 1, description: "The reaction key as stored (trimmed), percent-encoded." },
} as const;
