// The live event stream's shape: the data of every SSE message.
import type { JSONSchema } from "../../rest/schemas.ts";

export const components = {
  LiveEvent: {
    type: "object",
    description:
      'The data of every SSE message. message_created/message_updated: a full Message. ephemeral: {kind: "typing", users} (also sent first on every connect, as a snapshot), {kind: "receipt", event_id, receipt_type, user, ts} or {kind: "presence", user, presence, last_active_ago, currently_active}; a user is {type: "visitor", public_key, display_name} or {type: "matrix", mxid, display_name}. pins_changed (an extension): {pinned: [event ids]}, the pinned comments of the page after a change of its m.room.pinned_events.',
    required: ["type", "payload"],
    properties: {
      type: {
        enum: [
          "message_created",
          "message_updated",
          "message_deleted",
          "message_annotations_changed",
          "pins_changed",
          "ephemeral",
        ],
      },
      payload: { type: "object", description: "A full Message for message_created and message_updated." },
    },
  },
} as const satisfies Record<string, JSONSchema>;
