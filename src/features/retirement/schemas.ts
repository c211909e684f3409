// The shapes of retirement: a target's state and the answers of retire requests.
import { slug, type JSONSchema } from "../../rest/schemas.ts";

export const components = {
  RetirementState: {
    type: "object",
    description:
      "A retirement target and its state: retiring from the request until the background pass has cleared it (then 404).",
    required: ["target_type", "target_id", "state"],
    properties: {
      target_type: { enum: ["site", "page", "room"] },
      target_id: { type: "string", description: "The site id, site_id/page_slug, or the room id." },
      state: {
        enum: ["active", "retiring", "superseded"],
        description: "retiring once requested; reads answer active before that (and superseded for an upgraded room).",
      },
    },
  },
  PageRetiring: {
    type: "object",
    required: ["site_id", "page_slug", "status"],
    properties: { site_id: slug, page_slug: slug, status: { const: "retiring" } },
  },
  RoomRetiring: {
    type: "object",
    required: ["room_id", "status"],
    properties: { room_id: { type: "string" }, status: { const: "retiring" } },
  },
} as const satisfies Record<string, JSONSchema>;
