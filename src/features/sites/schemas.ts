// The shapes of site registration and secrets.
import { slug, type JSONSchema } from "../../rest/schemas.ts";

export const components = {
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
} as const satisfies Record<string, JSONSchema>;

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
} as const satisfies Record<string, JSONSchema>;
