// The shapes of the service routes: health and proof-of-work challenges.
import { nullableString, ref, type JSONSchema } from "../../rest/schemas.ts";

export const components = {
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
  ComponentHealth: {
    type: "object",
    required: ["status"],
    properties: { status: { enum: ["ok", "unavailable"] }, error: nullableString },
  },
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
} as const satisfies Record<string, JSONSchema>;
