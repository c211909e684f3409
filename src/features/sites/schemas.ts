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
    properties: {
      site_id: slug,
      secret: { type: "string", description: "The HMAC key (random 32 bytes, base64url); shown once." },
    },
  },
  SiteSettings: {
    type: "object",
    required: ["site_id", "page_url_pattern"],
    properties: {
      site_id: slug,
      page_url_pattern: {
        type: ["string", "null"],
        description: "Where the site's pages live, with {page_slug} in it; feeds and webhooks link comments there.",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const requestBodies = {
  updateSiteSettings: {
    type: "object",
    additionalProperties: false,
    required: ["page_url_pattern"],
    properties: {
      page_url_pattern: {
        type: ["string", "null"],
        maxLength: 2048,
        description:
          "An http(s) URL with {page_slug} in it, e.g. https://blog.example/posts/{page_slug}; null removes it. Declared in [sites], it cannot be changed here (409 config-declared).",
      },
    },
  },
  registerSite: {
    type: "object",
    additionalProperties: false,
    properties: { site_id: { ...slug, description: "The id to register; omit the body for a generated 32-hex id." } },
  },
  issueSiteSecret: {
    type: "object",
    additionalProperties: false,
    properties: {
      rotate: {
        type: "boolean",
        default: false,
        description: "true replaces an existing secret; without it an existing secret is 409 secret-exists.",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;
