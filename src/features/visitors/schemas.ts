// The shapes of visitor profiles and avatars.
import type { JSONSchema } from "../../rest/schemas.ts";

export const components = {
  VisitorProfile: {
    type: "object",
    description: "A visitor's current profile on one site; both fields null for a visitor the site does not know.",
    required: ["display_name", "avatar_url"],
    properties: {
      display_name: { type: ["string", "null"], description: "The virtual user's Matrix display name." },
      avatar_url: {
        type: ["string", "null"],
        description:
          "Signed proxy URL of the avatar (96x96 crop), absolute; its mxc:// URL when the media proxy is disabled; null without one.",
      },
    },
  },
  VisitorAvatar: {
    type: "object",
    required: ["avatar_url"],
    properties: {
      avatar_url: {
        type: ["string", "null"],
        description:
          "Signed proxy URL of the avatar (96x96 crop), absolute; its mxc:// URL when the media proxy is disabled; null once deleted.",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;
