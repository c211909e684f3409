// JSON Schemas (2020-12, as OpenAPI 3.2 uses them) of the REST surface, one per shape: request
// bodies are validated against them, their TypeScript types are derived from them (BodyOf in
// route.ts), and the OpenAPI document publishes them.

import { SYSTEM_MESSAGE_LIMIT } from "../features/rooms/rooms.ts";
import { MAX_PAGE } from "../core/pagination.ts";
import { MAX_CONFIRM_ATTEMPTS, VERIFICATION_TTL_HOURS } from "../features/verification/verifications.ts";
import { VERIFICATION_METHODS } from "../features/verification/verifier.ts";
import { VERIFY_TOKEN_TTL_HOURS } from "../features/governance/verify-tokens.ts";
import { PACK_ID_PATTERN, SHORTCODE_PATTERN } from "../features/stickers/image-pack.ts";
import { GRAPHQL_INT } from "./graphql-int.ts";

export type JSONSchema = Record<string, unknown>;

type ComponentName = "Problem" | "PaginationMeta" | "Author" | "ReactionSummary" | "Message" | "MessagePage" | "LiveEvent" | "SubmissionAccepted" | "Challenge" | "ComponentHealth" | "Health" | "SiteClaimToken" | "VerificationStart" | "VerifiedOrigins" | "SiteSecret" | "SystemMessage" | "RoomInfo" | "RoleMember" | "PageRoles" | "PageModerators" | "SiteRoles" | "OperatorSite" | "OperatorSitePage" | "SiteConfigSnippet" | "RetirementState" | "PageRetiring" | "RoomRetiring" | "StickerImage" | "StickerPack" | "StickerPacks" | "VisitorProfile" | "VisitorAvatar" | "MediaUpload" | "PendingRoleClaim" | "RevokedRole" | "PendingOwnershipTransfer";

export const ref = (name: ComponentName): JSONSchema => ({ $ref: `#/components/schemas/${name}` });

const slug = { type: "string", pattern: "^[a-z0-9-]{1,64}$" } as const;
const verificationMethod = { enum: VERIFICATION_METHODS } as const;
const nullableString = { type: ["string", "null"] };
const pendingClaimProperties = {
  pending: { const: true },
  user_id: { type: "string" },
  level: { type: "integer", description: "The level the role gives: admin 100 (Space and every room), manager 75 (Space and every room), moderator 50 (the page's room)." },
  verify_token: { type: "string", description: `Single use, shown once (only its hash is stored), valid ${VERIFY_TOKEN_TTL_HOURS} hours.` },
  expires_at: { type: "string", format: "date-time" },
};
const roster = { type: "array", items: ref("RoleMember"), description: "By level descending, then user_id." };
const eventId = { type: ["string", "null"], description: "A Matrix event id, or null." } as const;
const displayName = { type: ["string", "null"], description: "Written to the visitor's Matrix profile; not signed (1-50 grapheme clusters and at most 256 code points, the homeserver's limit)." } as const;
export const authorProof = {
  author_public_key: { type: "string", description: "base64url Ed25519 public key (32 bytes), unpadded." },
  author_signature: { type: "string", description: "base64url detached Ed25519 signature (64 bytes) over the operation's canonical JSON array." },
  challenge_response: { type: "string", description: "<challenge>|<nonce>, nonce 1-64 of [A-Za-z0-9]." },
} as const;

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
  MediaUpload: {
    type: "object",
    description: "A visitor media upload result: post it as a comment's `media` (its url must be this visitor's upload for this site).",
    required: ["url", "filename", "mimetype", "size", "voice"],
    properties: {
      url: { type: "string", pattern: "^mxc://", description: "The mxc:// URL of the upload in the homeserver's media repository." },
      filename: nullableString,
      mimetype: { type: "string", description: "The canonical MIME type (the declared one, checked against the bytes)." },
      size: { type: "integer", description: "Bytes." },
      voice: { type: "boolean", description: "Declared a voice message (voice=true)." },
    },
  },
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
  SiteClaimToken: {
    type: "object",
    description: "A site's claim token: at registration and at every rotation (the previous one no longer works).",
    required: ["site_id", "claim_token"],
    properties: { site_id: slug, claim_token: { type: "string", description: "Shown once; only its hash is stored." } },
  },
  SiteSecret: {
    type: "object",
    required: ["site_id", "secret"],
    properties: { site_id: slug, secret: { type: "string", description: "The HMAC key (random 32 bytes, base64url); shown once." } },
  },
  VerificationStart: {
    type: "object",
    required: ["origin", "token", "expires_at", "methods", "instructions"],
    properties: {
      origin: { type: "string", description: "The origin, normalized: scheme://host[:port], lowercase, default port dropped." },
      token: { type: "string", description: "The token to publish. A new start for the same origin replaces it." },
      expires_at: { type: "string", format: "date-time", description: `${VERIFICATION_TTL_HOURS} hours after the start; ${MAX_CONFIRM_ATTEMPTS} confirm attempts per token.` },
      methods: { type: "array", items: verificationMethod, description: "The methods confirm tries, in this order; the first proof found wins." },
      instructions: {
        type: "object",
        additionalProperties: false,
        description: "Per chosen method, exactly what to publish where.",
        properties: {
          "well-known": {
            type: "object",
            required: ["url", "content_type", "documents", "description"],
            properties: {
              url: { type: "string", description: "{origin}/.well-known/service.json" },
              content_type: { const: "application/json" },
              documents: { type: "array", items: { type: "object" }, description: 'Either document proves the token: {"site_id": <id>, "token": <token>} or {"sites": {<id>: <token>, …}}.' },
              description: { type: "string" },
            },
          },
          "dns-txt": {
            type: "object",
            required: ["name", "type", "value", "description"],
            properties: {
              name: { type: "string", description: "_service.<host>" },
              type: { const: "TXT" },
              value: { type: "string", description: "service-verification=<token>" },
              description: { type: "string" },
            },
          },
        },
      },
    },
  },
  VerifiedOrigins: {
    type: "object",
    required: ["site_id", "verified_origins"],
    properties: { site_id: slug, verified_origins: { type: "array", items: { type: "string" }, description: "Every origin allowed to write for the site: verified or declared in [sites]." } },
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
      avatar_url: { type: ["string", "null"], description: "A signed media proxy URL of the room avatar; the mxc:// URL when the proxy is disabled (media.proxy_enabled)." },
      avatar_thumbnail_url: { type: ["string", "null"], description: "A signed media proxy URL of the room avatar, 96x96 crop; the mxc:// URL when the proxy is disabled." },
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
  OperatorSite: {
    type: "object",
    description: "A site as the operator sees it: its database row merged with the [sites] configuration overlay.",
    required: ["site_id", "source", "status", "id_generated", "verified", "verified_origins", "has_secret", "secret_source", "space_room_id", "created_at"],
    properties: {
      site_id: slug,
      source: { enum: ["api", "config"], description: "config when the site is declared in [sites]." },
      status: { enum: ["active", "retiring"] },
      id_generated: { type: "boolean", description: "The server generated the id (registration without a body)." },
      verified: { type: "boolean", description: "Ownership is proven: the site is declared in [sites] or has verified at least one origin." },
      verified_origins: {
        type: "array",
        description: "Origins allowed to write, sorted; an origin declared in [sites] is config even if it was also verified.",
        items: { type: "object", required: ["origin", "source"], properties: { origin: { type: "string" }, source: { enum: ["verified", "config"] } } },
      },
      has_secret: { type: "boolean", description: "The site has an HMAC secret: writes must be signed." },
      secret_source: { enum: ["api", "config", null], description: "Where the secret comes from: issued through the API, declared in [sites], or null (none)." },
      space_room_id: { type: ["string", "null"], description: "The site's Matrix Space, once provisioned." },
      created_at: { type: "string", format: "date-time" },
    },
  },
  OperatorSitePage: {
    type: "object",
    required: ["data", "meta"],
    properties: { data: { type: "array", items: ref("OperatorSite") }, meta: ref("PaginationMeta") },
  },
  SiteConfigSnippet: {
    type: "object",
    required: ["site_id", "toml"],
    properties: {
      site_id: slug,
      toml: { type: "string", description: "A [sites.<site_id>] table with the site's origins and, if it has one, its secret; the service's configuration loader reads it as is." },
    },
  },
  RetirementState: {
    type: "object",
    description: "A retirement target and its state: retiring from the request until the background pass has cleared it (then 404).",
    required: ["target_type", "target_id", "state"],
    properties: {
      target_type: { enum: ["site", "page", "room"] },
      target_id: { type: "string", description: "The site id, site_id/page_slug, or the room id." },
      state: { enum: ["active", "retiring", "superseded"], description: "retiring once requested; reads answer active before that (and superseded for an upgraded room)." },
    },
  },
  PageRetiring: {
    type: "object",
    required: ["site_id", "page_slug", "status"],
    properties: { site_id: slug, page_slug: slug, status: { const: "retiring" } },
  },
  RoomRetiring: { type: "object", required: ["room_id", "status"], properties: { room_id: { type: "string" }, status: { const: "retiring" } } },
  StickerImage: {
    type: "object",
    required: ["shortcode", "url", "proxy_url", "body", "info"],
    properties: {
      shortcode: { type: "string" },
      url: { type: "string", description: "The image's mxc:// URL." },
      proxy_url: { type: ["string", "null"], description: "Signed preview URL (320x240 scale) of the media proxy, absolute; the mxc:// url when the proxy is disabled." },
      body: { type: ["string", "null"], description: "The image's description (alt text), if the pack gives one." },
      info: { type: ["object", "null"], description: "Matrix ImageInfo (w, h, mimetype, size, …) as the pack gives it." },
    },
  },
  StickerPack: {
    type: "object",
    description: "An MSC2545 image pack: the m.room.image_pack state event on the site's Space whose state key is pack_id. Only images usable as stickers are listed.",
    required: ["pack_id", "display_name", "avatar_url", "avatar_proxy_url", "images"],
    properties: {
      pack_id: { type: "string" },
      display_name: nullableString,
      avatar_url: { type: ["string", "null"], description: "The pack's mxc:// avatar." },
      avatar_proxy_url: { type: ["string", "null"], description: "Signed preview URL (96x96 crop) of the avatar; the mxc:// url when the proxy is disabled." },
      images: { type: "array", items: ref("StickerImage"), description: "By shortcode." },
    },
  },
  StickerPacks: { type: "object", required: ["packs"], properties: { packs: { type: "array", items: ref("StickerPack"), description: "By pack_id." } } },
  VisitorProfile: {
    type: "object",
    description: "A visitor's current profile on one site; both fields null for a visitor the site does not know.",
    required: ["display_name", "avatar_url"],
    properties: {
      display_name: { type: ["string", "null"], description: "The virtual user's Matrix display name." },
      avatar_url: { type: ["string", "null"], description: "Signed proxy URL of the avatar (96x96 crop), absolute; its mxc:// URL when the media proxy is disabled; null without one." },
    },
  },
  VisitorAvatar: {
    type: "object",
    required: ["avatar_url"],
    properties: {
      avatar_url: { type: ["string", "null"], description: "Signed proxy URL of the avatar (96x96 crop), absolute; its mxc:// URL when the media proxy is disabled; null once deleted." },
    },
  },
  PendingRoleClaim: {
    type: "object",
    description: "A pending role claim. It becomes the role when the user sends `service-claim:<verify_token>` to the service's AS bot in an unencrypted 1:1 DM.",
    required: ["pending", "user_id", "level", "verify_token", "expires_at"],
    properties: pendingClaimProperties,
  },
  RevokedRole: {
    type: "object",
    description: "A pending claim cancelled and/or an applied role removed from every room it was written to.",
    required: ["revoked", "user_id", "level"],
    properties: {
      revoked: { const: true },
      user_id: { type: "string" },
      level: { type: "integer", description: "The role's level: admin 100, manager 75, moderator 50." },
      warnings: {
        type: "array",
        description: "Present only when the last site admin was removed: code last-admin-removed.",
        items: { type: "object", required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } } },
      },
    },
  },
  PendingOwnershipTransfer: {
    type: "object",
    description: "The target's pending admin claim and the transfer record. Redeemed, the admin roster is reset to the target and the claim token rotated (the new one is delivered in the bot DM).",
    required: ["pending", "user_id", "level", "verify_token", "expires_at", "transfer"],
    properties: {
      ...pendingClaimProperties,
      transfer: {
        type: "object",
        required: ["transfer_id", "site_id", "user_id", "status", "created_at"],
        properties: {
          transfer_id: { type: "string" },
          site_id: slug,
          user_id: { type: "string" },
          status: { enum: ["pending", "complete", "cancelled"], description: "pending until the target redeems the claim; cancelled when a later transfer or a revocation replaces it." },
          created_at: { type: "string", format: "date-time" },
        },
      },
    },
  },
} satisfies Record<ComponentName, JSONSchema>;

export const requestBodies = {
  registerSite: {
    type: "object",
    additionalProperties: false,
    properties: { site_id: { ...slug, description: "The id to register; omit the body for a generated 32-hex id." } },
  },
  issueSiteSecret: {
    type: "object",
    additionalProperties: false,
    properties: { rotate: { type: "boolean", default: false, description: "true replaces an existing secret; without it an existing secret is 409 secret-exists." } },
  },
  startVerification: {
    type: "object",
    additionalProperties: false,
    required: ["origin"],
    properties: {
      origin: { type: "string", description: "scheme://host[:port], http or https, no path." },
      methods: {
        type: "array",
        minItems: 1,
        uniqueItems: true,
        items: verificationMethod,
        description: 'The order confirm tries them in. Default: ["well-known", "dns-txt"] (only well-known for an IP-address origin).',
      },
    },
  },
  confirmVerification: { type: "object", additionalProperties: false, required: ["origin"], properties: { origin: { type: "string", description: "The origin as started." } } },
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
      display_name: { type: ["string", "null"], description: "Written to the visitor's Matrix profile; not signed (1-50 grapheme clusters and at most 256 code points, the homeserver's limit)." },
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
  listOperatorSites: {
    type: "object",
    additionalProperties: false,
    properties: {
      page: { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 1, description: `1-${MAX_PAGE}; past the last page the list is empty.` },
      per_page: { type: "integer", minimum: 1, maximum: 100, default: 20 },
      site_id: { ...slug, description: "Only this site (an empty page when it is not tracked)." },
    },
  },
  roleClaim: {
    type: "object",
    additionalProperties: false,
    required: ["user_id"],
    properties: { user_id: { type: "string", minLength: 1, maxLength: 255, description: "The Matrix user id to appoint (@localpart:server); not one of the service's own users." } },
  },
  revokeOrigin: {
    type: "object",
    additionalProperties: false,
    required: ["origin"],
    properties: { origin: { type: "string", description: "The origin to revoke, scheme://host[:port]." } },
  },
  addSticker: {
    type: "object",
    additionalProperties: false,
    required: ["shortcode", "url"],
    properties: {
      shortcode: { type: "string", pattern: SHORTCODE_PATTERN, description: `The image's shortcode, ${SHORTCODE_PATTERN}; an existing one is replaced in place.` },
      url: { type: "string", description: "mxc://<this service's homeserver>/<media id>, media id of [A-Za-z0-9_-]." },
      body: { type: "string", maxLength: 1000, description: "The image's description (alt text)." },
      info: { type: "object", description: "Matrix ImageInfo (w, h, mimetype, size, …), stored as given; as Matrix's canonical JSON requires, numbers must be integers within ±(2^53−1) (no floats), nested at most 32 levels (400 validation-error otherwise)." },
    },
  },
} as const satisfies Record<string, JSONSchema>;

/** A visitor write body: the operation's own fields plus the author proof. */
function proofBody<const P extends Record<string, JSONSchema>, const R extends readonly string[]>(properties: P, required: R) {
  return {
    type: "object",
    additionalProperties: false,
    required: [...required, "author_public_key", "author_signature", "challenge_response"] as const,
    properties: { ...properties, ...authorProof },
  } as const;
}

export const pathParams = {
  site_id: { ...slug, description: "Site id: lowercase [a-z0-9-], 1-64 characters." },
  page_slug: { ...slug, description: "Page slug: lowercase [a-z0-9-], 1-64 characters." },
  comment_id: { type: "string", minLength: 1, description: "A comment's Matrix event id, percent-encoded (room v3+ ids may contain /)." },
  poll_id: { type: "string", minLength: 1, description: "The poll comment's Matrix event id, percent-encoded." },
  key: { type: "string", minLength: 1, description: "The reaction key as stored (trimmed), percent-encoded." },
  pack_id: { type: "string", pattern: PACK_ID_PATTERN, description: `A sticker pack id (the state key of its m.room.image_pack event): ${PACK_ID_PATTERN}.` },
  shortcode: { type: "string", pattern: SHORTCODE_PATTERN, description: `An image's shortcode: ${SHORTCODE_PATTERN}.` },
  user_id: { type: "string", minLength: 1, description: "A Matrix user id, percent-encoded." },
};
