// The shapes of site governance: role claims, revocations and ownership transfers.
import { slug, type JSONSchema } from "../../rest/schemas.ts";
import { VERIFY_TOKEN_TTL_HOURS } from "./verify-tokens.ts";

const pendingClaimProperties = {
  pending: { const: true },
  user_id: { type: "string" },
  level: {
    type: "integer",
    description:
      "The level the role gives: admin 100 (Space and every room), manager 75 (Space and every room), moderator 50 (the page's room).",
  },
  verify_token: {
    type: "string",
    description: `Single use, shown once (only its hash is stored), valid ${VERIFY_TOKEN_TTL_HOURS} hours.`,
  },
  expires_at: { type: "string", format: "date-time" },
} as const;

export const components = {
  PendingRoleClaim: {
    type: "object",
    description:
      "A pending role claim. It becomes the role when the user sends `service-claim:<verify_token>` to the service's AS bot in an unencrypted 1:1 DM.",
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
        items: {
          type: "object",
          required: ["code", "message"],
          properties: { code: { type: "string" }, message: { type: "string" } },
        },
      },
    },
  },
  PendingOwnershipTransfer: {
    type: "object",
    description:
      "The target's pending admin claim and the transfer record. Redeemed, the admin roster is reset to the target and the claim token rotated (the new one is delivered in the bot DM).",
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
          status: {
            enum: ["pending", "complete", "cancelled"],
            description:
              "pending until the target redeems the claim; cancelled when a later transfer or a revocation replaces it.",
          },
          created_at: { type: "string", format: "date-time" },
        },
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const requestBodies = {
  roleClaim: {
    type: "object",
    additionalProperties: false,
    required: ["user_id"],
    properties: {
      user_id: {
        type: "string",
        minLength: 1,
        maxLength: 255,
        description: "The Matrix user id to appoint (@localpart:server); not one of the service's own users.",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const pathParams = {
  user_id: { type: "string", minLength: 1, description: "A Matrix user id, percent-encoded." },
} as const;
