// The shapes of a page's room (metadata, system messages) and of the role rosters.
import { nullableString, paginationProperties, ref, slug, type JSONSchema } from "../../rest/schemas.ts";
import { SYSTEM_MESSAGE_LIMIT } from "./rooms.ts";
import { INTENT_STATES } from "./upgrade-intent-store.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

const roster = { type: "array", items: ref("RoleMember"), description: "By level descending, then user_id." } as const;

export const components = {
  SystemMessage: {
    type: "object",
    required: ["event_id", "event_type", "state_key", "sender", "origin_server_ts", "content_json"],
    properties: {
      event_id: { type: "string" },
      event_type: { enum: [EventType.Member, EventType.Name, EventType.Topic, EventType.Avatar] },
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
      avatar_url: {
        type: ["string", "null"],
        description:
          "A signed media proxy URL of the room avatar; the mxc:// URL when the proxy is disabled (media.proxy_enabled).",
      },
      avatar_thumbnail_url: {
        type: ["string", "null"],
        description:
          "A signed media proxy URL of the room avatar, 96x96 crop; the mxc:// URL when the proxy is disabled.",
      },
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
    properties: {
      site_id: slug,
      page_slug: slug,
      room_id: { type: "string" },
      admins: roster,
      managers: roster,
      moderators: roster,
    },
  },
  PageModerators: {
    type: "object",
    required: ["room_id", "moderators"],
    properties: { room_id: { type: "string" }, moderators: roster },
  },
  SiteRoles: { type: "object", required: ["admins", "managers"], properties: { admins: roster, managers: roster } },
  RoomUpgrade: {
    type: "object",
    description: "A converged upgrade: the replacement is the page's active room, the old room superseded.",
    required: ["room_id", "site_id", "page_slug", "replacement_room_id", "room_version", "state"],
    properties: {
      room_id: { type: "string", description: "The upgraded (now superseded) room." },
      site_id: slug,
      page_slug: slug,
      replacement_room_id: { type: "string", description: "The page's active room now." },
      room_version: { type: "string", description: "The replacement's room version." },
      state: { const: "adopted" },
    },
  },
  RoomUpgradeIntent: {
    type: "object",
    required: [
      "room_id",
      "site_id",
      "page_slug",
      "target_version",
      "replacement_room_id",
      "state",
      "error",
      "created_at",
      "updated_at",
    ],
    properties: {
      room_id: { type: "string", description: "The room being replaced." },
      site_id: slug,
      page_slug: slug,
      target_version: {
        type: "string",
        description: 'The requested room version; for a tombstone written by hand "unknown" until adopted.',
      },
      replacement_room_id: {
        type: ["string", "null"],
        description: "The replacement the tombstone names, once observed.",
      },
      state: { enum: [...INTENT_STATES] },
      error: nullableString,
      created_at: { type: "string", format: "date-time" },
      updated_at: { type: "string", format: "date-time" },
    },
  },
  RoomUpgradeIntentPage: {
    type: "object",
    required: ["data", "meta"],
    properties: { data: { type: "array", items: ref("RoomUpgradeIntent") }, meta: ref("PaginationMeta") },
  },
  QuarantinedRoom: {
    type: "object",
    required: [
      "room_id",
      "site_id",
      "page_slug",
      "reason",
      "first_quarantined_at",
      "consecutive_failures",
      "next_retry_at",
    ],
    properties: {
      room_id: { type: "string" },
      site_id: slug,
      page_slug: slug,
      reason: { type: "string", description: "Why the service cannot manage the room (the latest failed attempt)." },
      first_quarantined_at: { type: "string", format: "date-time" },
      consecutive_failures: { type: "integer", minimum: 1, description: "Failed adoption attempts in a row." },
      next_retry_at: {
        type: ["string", "null"],
        format: "date-time",
        description: "The next automatic adoption attempt; null: manual attention (reinstate).",
      },
    },
  },
  QuarantinedRoomPage: {
    type: "object",
    required: ["data", "meta"],
    properties: { data: { type: "array", items: ref("QuarantinedRoom") }, meta: ref("PaginationMeta") },
  },
} as const satisfies Record<string, JSONSchema>;

const roomVersion = {
  type: "string",
  minLength: 1,
  maxLength: 64,
  description: "A Matrix room version the homeserver knows, newer than the room's.",
} as const;

export const requestBodies = {
  upgradeRoom: {
    type: "object",
    additionalProperties: false,
    required: ["new_version"],
    properties: { new_version: roomVersion },
  },
  recoverUpgrade: {
    type: "object",
    additionalProperties: false,
    required: ["new_version", "replacement_room"],
    properties: {
      new_version: roomVersion,
      replacement_room: {
        type: "string",
        minLength: 1,
        maxLength: 255,
        description: "The room the old room's tombstone names.",
      },
    },
  },
  listUpgradeIntents: {
    type: "object",
    additionalProperties: false,
    properties: { ...paginationProperties, status: { enum: [...INTENT_STATES] } },
  },
  listQuarantinedRooms: {
    type: "object",
    additionalProperties: false,
    properties: { ...paginationProperties, site_id: { ...slug, description: "Only this site's rooms." } },
  },
} as const satisfies Record<string, JSONSchema>;
