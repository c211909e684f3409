// The shapes of dashboard sign-in.
import type { JSONSchema } from "../../rest/schemas.ts";

export const components = {
  DashboardSession: {
    type: "object",
    required: ["session_token", "user_id", "expires_at"],
    properties: {
      session_token: {
        type: "string",
        description:
          "Send it as `Authorization: Bearer <session_token>` (the response also sets it as an HttpOnly cookie).",
      },
      user_id: { type: "string", description: "The Matrix user the homeserver vouched for." },
      expires_at: {
        type: "string",
        format: "date-time",
        description: "The session ends then (dashboard.session_ttl_seconds).",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const requestBodies = {
  dashboardSignIn: {
    type: "object",
    additionalProperties: false,
    required: ["matrix_server_name", "access_token"],
    properties: {
      matrix_server_name: {
        type: "string",
        maxLength: 255,
        pattern: "^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$",
        description: "The homeserver that issued the token (the OpenID token response's matrix_server_name).",
      },
      access_token: {
        type: "string",
        minLength: 1,
        maxLength: 1024,
        pattern: "^[\\x21-\\x7E]+$",
        description: "The OpenID token (the response's access_token), not the Matrix access token.",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;
