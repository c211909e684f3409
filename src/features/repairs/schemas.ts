// The shapes of projection repairs as the operator sees them.
import { nullableString, paginationProperties, ref, type JSONSchema } from "../../rest/schemas.ts";
import { REPAIR_STATES } from "../../projection/repair-store.ts";

export const components = {
  ProjectionRepair: {
    type: "object",
    description:
      "A pushed event that could not be applied, skipped so it blocks nothing. Pending repairs are retried automatically with backoff (1 min, 10 min, 1 h), then manual; resolved once the event applies.",
    required: [
      "target_event_id",
      "room_id",
      "event_type",
      "reason",
      "status",
      "attempts",
      "next_retry_at",
      "created_at",
      "updated_at",
    ],
    properties: {
      target_event_id: { type: "string" },
      room_id: nullableString,
      event_type: nullableString,
      reason: { type: "string", description: "Why it could not be applied (the latest attempt)." },
      status: { enum: [...REPAIR_STATES] },
      attempts: { type: "integer" },
      next_retry_at: {
        type: ["string", "null"],
        format: "date-time",
        description: "The next automatic retry (pending only).",
      },
      created_at: { type: "string", format: "date-time" },
      updated_at: { type: "string", format: "date-time" },
    },
  },
  ProjectionRepairPage: {
    type: "object",
    required: ["data", "meta"],
    properties: { data: { type: "array", items: ref("ProjectionRepair") }, meta: ref("PaginationMeta") },
  },
} as const satisfies Record<string, JSONSchema>;

export const requestBodies = {
  listRepairs: {
    type: "object",
    additionalProperties: false,
    properties: { ...paginationProperties, status: { enum: [...REPAIR_STATES] } },
  },
} as const satisfies Record<string, JSONSchema>;
