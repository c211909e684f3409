// JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the REST surface: request bodies are
// validated against them and the OpenAPI document publishes them as components.

export type JSONSchema = Record<string, unknown>;

type ComponentName = "Problem" | "PaginationMeta" | "Author" | "ReactionSummary" | "Message" | "MessagePage" | "LiveEvent" | "SubmissionAccepted" | "Challenge" | "ComponentHealth" | "Health" | "SiteRegistration";

export const ref = (name: ComponentName): JSONSchema => ({ $ref: `#/components/schemas/${name}` });

const slug = { type: "string", pattern: "^[a-z0-9-]{1,64}$" };
const nullableString = { type: ["string", "null"] };
const eventId = { type: ["string", "null"], description: "A Matrix event id, or null." };
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
      page: { type: "integer", minimum: 1, default: 1 },
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
} satisfies Record<string, JSONSchema>;

export const pathParams = {
  site_id: { ...slug, description: "Site id: lowercase [a-z0-9-], 1-64 characters." },
  page_slug: { ...slug, description: "Page slug: lowercase [a-z0-9-], 1-64 characters." },
};
