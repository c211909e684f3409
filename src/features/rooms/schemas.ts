// The shapes of a page's room (metadata, system messages) and of the role rosters.
import { nullableString, ref, slug, type JSONSchema } from "../../rest/schemas.ts";
import { SYSTEM_MESSAGE_LIMIT } from "./rooms.ts";

const roster = { type: "array", items: ref("RoleMember"), description: "By level descending, then user_id." } as const;

export const components = {
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
} as const satisfies Record<string, JSONSchema>;
