// JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the REST surface: request bodies are
// validated against them and the OpenAPI document publishes them as components.

import { SYSTEM_MESSAGE_LIMIT } from "../domain/rooms.ts";
import { MAX_PAGE } from "../domain/pagination.ts";

export type JSONSchema = Record<string, unknown>;

type ComponentName = "Problem" | "PaginationMeta" | "Author" | "ReactionSummary" | "Message" | "MessagePage" | "LiveEvent" | "SubmissionAccepted" | "Challenge" | "ComponentHealth" | "Health" | "SiteRegistration" | "SystemMessage" | "RoomInfo" | "RoleMember" | "PageRoles" | "PageModerators" | "SiteRoles";

export const ref = (name: ComponentName): JSONSchema => ({ $ref: `#/components/schemas/${name}` });

const slug = { type: "string", pattern: "^[a-z0-9-]{1,64}$" };
const nullableString = { type: ["string", "null"] };
const roster = { type: "array", items: ref("RoleMember"), description: "By level descending, then user_id." };
const eventId = { type: ["string", "null"], description: "A Matrix event id, or null." };
const displayName = { type: ["string", "null"], description: "Written to the visitor's Matrix profile; not signed (1-50 grapheme clusters)." };
const authorProof = {
  author_public_key: { type: "string", description: "base64url Ed25519 public key (32 bytes), unpadded." },
  author_signature: { type: "string", description: "base64url detached Ed25519 signature (64 bytes) over the operation's canonical JSON array." },
  challenge_response: { type: "string", description: "<challenge>|<nonce>, nonce 1-64 of [A-Za-z0-9]." },
};

export const components = {
  Problem: {
    type: "object",
    description: "RFC 9457 problem details.",
    required: ["type", "title", "status", "detail", "code"],
    properties: {
      type: { type: "string", description: "Stable URI ending in the code." },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string" },
      code: { type: "string", description: "Stable machine-readable slug." },
      instance: { type: "string" },
      errors: {
        type: "array",
        items: { type: "object", required: ["field", "message"], properties: { field: { type: "string" }, message: { type: "string" } } },
      },
    },
  },
  PaginationMeta: {
    type: "object",
    required: ["total", "page", "per_page", "total_pages"],
    properties: { total: { type: "integer" }, page: { type: "integer" }, per_page: { type: "integer" }, total_pages: { type: "integer" } },
  },
  Author: {
    type: "object",
    required: ["type", "display_name", "avatar_url"],
    properties: {
      type: { enum: ["visitor", "matrix"] },
      public_key: { type: "string", description: "Visitors only." },
      mxid: { type: "string", description: "Matrix authors only." },
      display_name: nullableString,
      avatar_url: nullableString,
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
        description: "Typed content: text {body, format, formatted_body}, media, location, poll, redacted, encrypted or unknown.",
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
  LiveEvent: {
    type: "object",
    description:
      'The data of every SSE message. message_created/message_updated: a full Message. ephemeral: {kind: "typing", users} (also sent first on every connect, as a snapshot), {kind: "receipt", event_id, receipt_type, user, ts} or {kind: "presence", user, presence, last_active_ago, currently_active}; a user is {type: "visitor", public_key, display_name} or {type: "matrix", mxid, display_name}.',
    required: ["type", "payload"],
    properties: {
      type: { enum: ["message_created", "message_updated", "message_deleted", "message_annotations_changed", "ephemeral"] },
      payload: { type: "object", description: "A full Message for message_created and message_updated." },
    },
  },
  SubmissionAccepted: { type: "object", required: ["submission_id"], properties: { submission_id: { type: "string" } } },
  Challenge: {
    type: "object",
    required: ["challenge", "difficulty", "algorithm", "expires_at"],
    properties: {
      challenge: { type: "string", pattern: "^[A-Za-z0-9_-]+$" },
      difficulty: { type: "integer", description: "Leading zero bits SHA-256(challenge_response) must have." },
      algorithm: { const: "sha256-leading-zero-bits" },
      expires_at: { type: "string", format: "date-time" },
    },
  },
  ComponentHealth: { type: "object", required: ["status"], properties: { status: { enum: ["ok", "unavailable"] }, error: nullableString } },
  Health: {
    type: "object",
    required: ["status", "database", "homeserver", "queue"],
    properties: {
      status: { enum: ["ok", "degraded"] },
      database: ref("ComponentHealth"),
      homeserver: ref("ComponentHealth"),
      queue: {
        type: "object",
        required: ["status", "queued", "failed"],
        properties: {
          status: { enum: ["ok", "stopped"] },
          queued: { type: "integer" },
          failed: { type: "integer" },
          oldest_queued_age_seconds: { type: ["integer", "null"] },
        },
      },
    },
  },
  SiteRegistration: {
    type: "object",
    required: ["site_id", "claim_token"],
    properties: { site_id: slug, claim_token: { type: "string", description: "Shown once." } },
  },
  SystemMessage: {
    type: "object",
    required: ["event_id", "event_type", "state_key", "sender", "origin_server_ts", "content_json"],
    properties: {
      event_id: { type: "string" },
      event_type: { enum: ["m.room.member", "m.room.name", "m.room.topic", "m.room.avatar"] },
      state_key: nullableString,
      sender: { type: "string" },
      origin_server_ts: { type: "integer" },
      content_json: { type: "object", description: "The event's content as sent." },
    },
  },
  RoomInfo: {
    type: "object",
    required: ["room_id", "name", "topic", "avatar_url", "avatar_thumbnail_url", "member_count", "system_messages"],
    properties: {
      room_id: { type: "string" },
      name: nullableString,
      topic: nullableString,
      avatar_url: { type: ["string", "null"], description: "An mxc:// URL." },
      avatar_thumbnail_url: { type: ["string", "null"], description: "A signed proxy URL; null while the media proxy is not available." },
      member_count: { type: "integer", description: "Joined members, not counting the service's bot." },
      system_messages: {
        type: "array",
        description: `Member joins and leaves and name, topic and avatar changes: the most recent ${SYSTEM_MESSAGE_LIMIT}, oldest first.`,
        items: ref("SystemMessage"),
      },
    },
  },
  RoleMember: {
    type: "object",
    description: "A role holder: admin (level 100 and above), manager (75-99) or moderator (50-74).",
    required: ["user_id", "level"],
    properties: { user_id: { type: "string" }, level: { type: "integer" } },
  },
  PageRoles: {
    type: "object",
    required: ["site_id", "page_slug", "room_id", "admins", "managers", "moderators"],
    properties: { site_id: slug, page_slug: slug, room_id: { type: "string" }, admins: roster, managers: roster, moderators: roster },
  },
  PageModerators: { type: "object", required: ["room_id", "moderators"], properties: { room_id: { type: "string" }, moderators: roster } },
  SiteRoles: { type: "object", required: ["admins", "managers"], properties: { admins: roster, managers: roster } },
} satisfies Record<ComponentName, JSONSchema>;

export const requestBodies = {
  registerSite: {
    type: "object",
    additionalProperties: false,
    properties: { site_id: { ...slug, description: "The id to register; omit the body for a generated 32-hex id." } },
  },
  listComments: {
    type: "object",
    additionalProperties: false,
    properties: {
      page: { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 1, description: `1-${MAX_PAGE}; past the last page the list is empty.` },
      per_page: { type: "integer", minimum: 1, maximum: 100, default: 20 },
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
      content: { type: "string", description: "The comment text (1-10000 grapheme clusters)." },
      media: { type: ["object", "null"], description: "Not supported by this version; must be absent or null." },
      display_name: { type: ["string", "null"], description: "Written to the visitor's Matrix profile; not signed (1-50 grapheme clusters)." },
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
      max_selections: { type: ["integer", "null"], description: "Only 1 is accepted (the default)." },
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
} satisfies Record<string, JSONSchema>;

/** A visitor write body: the operation's own fields plus the author proof. */
function proofBody(properties: Record<string, JSONSchema>, required: string[]): JSONSchema {
  return {
    type: "object",
    additionalProperties: false,
    required: [...required, "author_public_key", "author_signature", "challenge_response"],
    properties: { ...properties, ...authorProof },
  };
}

export const pathParams = {
  site_id: { ...slug, description: "Site id: lowercase [a-z0-9-], 1-64 characters." },
  page_slug: { ...slug, description: "Page slug: lowercase [a-z0-9-], 1-64 characters." },
  comment_id: { type: "string", minLength: 1, description: "A comment's Matrix event id, percent-encoded (room v3+ ids may contain /)." },
  poll_id: { type: "string", minLength: 1, description: "The poll comment's Matrix event id, percent-encoded." },
  key: { type: "string", minLength: 1, description: "The reaction key as stored (trimmed), percent-encoded." },
};
