// The comment shapes of the REST surface: the Message as the API returns it (its JSON Schema is the
// one declaration its TypeScript type, its GraphQL selection and its wire form derive from), the
// bodies of the comment reads, and the field schemas the visitor writes' bodies share (each write's
// body is declared in its route entry).
import {
  authorProof,
  components as sharedComponents,
  nullableString,
  paginationProperties,
  ref,
  type JSONSchema,
  type WireOf,
} from "../../rest/schemas.ts";
import { selectionOf } from "../../rest/wire.ts";
import { messageContent } from "../../contract/message-content.ts";
import { HTML_FORMAT } from "../../contract/matrix-vocabulary.ts";

/** Field schemas the visitor writes' bodies share (their route entries declare the bodies). */
export const eventId = { type: ["string", "null"], description: "A Matrix event id, or null." } as const;
export const displayName = {
  type: ["string", "null"],
  description:
    "Written to the visitor's Matrix profile; not signed (1-50 grapheme clusters and at most 256 code points, the homeserver's limit).",
} as const;

export const components = {
  MessageContent: messageContent,
  Author: {
    type: "object",
    required: ["type", "display_name", "avatar_url"],
    properties: {
      type: { enum: ["visitor", "matrix"] },
      public_key: { type: "string", description: "Visitors only." },
      mxid: { type: "string", description: "Matrix authors only." },
      display_name: nullableString,
      avatar_url: {
        type: ["string", "null"],
        description:
          "A signed media proxy URL (96x96 crop); the mxc:// URL when the proxy is disabled (media.proxy_enabled).",
      },
    },
  },
  ReactionSummary: {
    type: "object",
    required: ["key", "count", "mine"],
    properties: { key: { type: "string" }, count: { type: "integer" }, mine: { type: "boolean" } },
  },
  Message: {
    type: "object",
    required: [
      "event_id",
      "room_id",
      "status",
      "created_at",
      "origin_server_ts",
      "edited_at",
      "reply_to",
      "thread_root",
      "content",
      "author",
      "reactions",
    ],
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
      content: ref("MessageContent"),
      author: ref("Author"),
      reactions: { type: "array", items: ref("ReactionSummary") },
    },
  },
  PendingComment: {
    type: "object",
    description:
      "A comment of the viewer's held for review (not in Matrix until approved), rejected by a moderator, or refused by the homeserver (failed: the page was closed or its author banned after the 202); rejected and failed ones are shown 7 days.",
    required: [
      "submission_id",
      "status",
      "error",
      "author_display_name",
      "created_at",
      "reply_to",
      "thread_root",
      "content",
    ],
    properties: {
      submission_id: { type: "string", description: "The 202's submission_id." },
      author_display_name: { type: ["string", "null"], description: "The name the author gave with it; null: none." },
      status: { enum: ["held", "rejected", "failed"] },
      error: {
        type: ["string", "null"],
        description: "Why it failed (status failed): the homeserver's refusal; null otherwise.",
      },
      created_at: { type: "string", format: "date-time" },
      reply_to: nullableString,
      thread_root: nullableString,
      content: ref("MessageContent"),
    },
  },
  MessagePage: {
    type: "object",
    required: ["data", "meta", "pinned", "closed", "pending"],
    properties: {
      data: { type: "array", items: ref("Message") },
      meta: ref("PaginationMeta"),
      pinned: {
        type: "array",
        items: ref("Message"),
        description:
          "An extension: the page's pinned comments (m.room.pinned_events), in pin order, on every page of the list; a widget shows them first. They are in `data` at their place too.",
      },
      closed: {
        type: "boolean",
        description: "An extension: the page is closed to new comments (writes answer 403 page-closed).",
      },
      pending: {
        type: "array",
        items: ref("PendingComment"),
        description:
          "An extension, filled on personalized reads only: the viewer's comments held for review, rejected or failed, oldest first.",
      },
    },
  },
  PageCount: {
    type: "object",
    required: ["page_slug", "comment_count", "last_comment_at"],
    properties: {
      page_slug: { type: "string" },
      comment_count: { type: "integer", description: "Standing comments: deleted ones leave the count." },
      last_comment_at: {
        type: ["string", "null"],
        format: "date-time",
        description: "The newest one's time; null: none.",
      },
    },
  },
  PageCounts: {
    type: "object",
    required: ["data"],
    properties: { data: { type: "array", items: ref("PageCount") } },
  },
} as const satisfies Record<string, JSONSchema>;

/** A comment as the API sends it: in list pages and as the payload of live events. */
export type WireMessage = WireOf<typeof components.Message, typeof components>;
export type MessagePageBody = WireOf<typeof components.MessagePage, typeof components & typeof sharedComponents>;

/** The GraphQL fragment selecting a Message's wire members (snake_case aliases). */
export const MESSAGE_FIELDS = `
fragment MessageFields on Message { ${selectionOf(components.Message, components)} }`;

/** The GraphQL fragment selecting a PendingComment's wire members (HeldComment, the moderation feature's). */
export const PENDING_FIELDS = `
fragment PendingFields on HeldComment { submission_id: submissionId status error author_display_name: authorDisplayName created_at: createdAt reply_to: replyTo thread_root: threadRoot content }`;

/** `T` with the members `K` null where the wire omits them. */
type NullFor<T, K extends keyof T> = { [P in keyof T]: P extends K ? Exclude<T[P], undefined> | null : T[P] };

/** A Message as MESSAGE_FIELDS selects it: the members the wire omits are null there. */
export type SelectedMessage = {
  [P in keyof WireMessage]: P extends "author"
    ? NullFor<WireMessage["author"], "public_key" | "mxid">
    : NullFor<WireMessage, "submission_id">[P];
};

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

/** A text comment's optional rich text, as Matrix sends it beside the plain body (not signed). */
export const formatted = {
  format: { type: ["string", "null"], description: `With formatted_body, and only then: "${HTML_FORMAT}".` },
  formatted_body: {
    type: ["string", "null"],
    description:
      "The text as HTML of the Matrix specification's subset (e.g. Markdown converted by the client), sent as the event's formatted_body beside `content` as its body. Not signed (the signature covers `content`); readers sanitize it. Text comments only; with format; the whole event within the homeserver's 64 KiB.",
  },
} as const;

export const requestBodies = {
  listComments: {
    type: "object",
    additionalProperties: false,
    properties: {
      ...paginationProperties,
      order: {
        enum: ["asc", "desc", "top"],
        default: "asc",
        description:
          "asc: oldest first; desc: newest first (the specification's). top (an extension): the most reactions first (the sum of the reaction counts), ties oldest first; its pages are read from the read model's index on that count, so a reaction arriving between two page reads can move a comment across their boundary.",
      },
      author_public_key: authorProof.author_public_key,
      author_signature: {
        type: "string",
        description: 'Personalization: signature over ["QUERY_COMMENTS", site_id, page_slug].',
      },
    },
  },
  pageCounts: {
    type: "object",
    additionalProperties: false,
    required: ["pages"],
    properties: {
      pages: {
        type: "array",
        maxItems: 200,
        items: { type: "string", pattern: "^[a-z0-9-]{1,64}$" },
        description: "Page slugs (at most 200); answered in this order, repeats included.",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const pathParams = {
  comment_id: {
    type: "string",
    minLength: 1,
    description: "A comment's Matrix event id, percent-encoded (room v3+ ids may contain /).",
  },
  poll_id: { type: "string", minLength: 1, description: "The poll comment's Matrix event id, percent-encoded." },
  key: { type: "string", minLength: 1, description: "The reaction key as stored (trimmed), percent-encoded." },
} as const;
