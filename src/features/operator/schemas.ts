// The shapes of the operator API: sites as the operator sees them and their configuration snippets.
import { paginationProperties, ref, slug, type JSONSchema } from "../../rest/schemas.ts";

export const components = {
  OperatorSite: {
    type: "object",
    description: "A site as the operator sees it: its database row merged with the [sites] configuration overlay.",
    required: [
      "site_id",
      "source",
      "status",
      "id_generated",
      "verified",
      "verified_origins",
      "has_secret",
      "secret_source",
      "space_room_id",
      "created_at",
    ],
    properties: {
      site_id: slug,
      source: { enum: ["api", "config"], description: "config when the site is declared in [sites]." },
      status: { enum: ["active", "retiring"] },
      id_generated: { type: "boolean", description: "The server generated the id (registration without a body)." },
      verified: {
        type: "boolean",
        description: "Ownership is proven: the site is declared in [sites] or has verified at least one origin.",
      },
      verified_origins: {
        type: "array",
        description:
          "Origins allowed to write, sorted; an origin declared in [sites] is config even if it was also verified.",
        items: {
          type: "object",
          required: ["origin", "source"],
          properties: { origin: { type: "string" }, source: { enum: ["verified", "config"] } },
        },
      },
      has_secret: { type: "boolean", description: "The site has an HMAC secret: writes must be signed." },
      secret_source: {
        enum: ["api", "config", null],
        description: "Where the secret comes from: issued through the API, declared in [sites], or null (none).",
      },
      space_room_id: { type: ["string", "null"], description: "The site's Matrix Space, once provisioned." },
      created_at: { type: "string", format: "date-time" },
    },
  },
  OperatorSitePage: {
    type: "object",
    required: ["data", "meta"],
    properties: { data: { type: "array", items: ref("OperatorSite") }, meta: ref("PaginationMeta") },
  },
  SiteConfigSnippet: {
    type: "object",
    required: ["site_id", "toml"],
    properties: {
      site_id: slug,
      toml: {
        type: "string",
        description:
          "A [sites.<site_id>] table with the site's origins and, if it has one, its secret; the service's configuration loader reads it as is.",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const requestBodies = {
  listOperatorSites: {
    type: "object",
    additionalProperties: false,
    properties: {
      ...paginationProperties,
      site_id: { ...slug, description: "Only this site (an empty page when it is not tracked)." },
    },
  },
  revokeOrigin: {
    type: "object",
    additionalProperties: false,
    required: ["origin"],
    properties: { origin: { type: "string", description: "The origin to revoke, scheme://host[:port]." } },
  },
} as const satisfies Record<string, JSONSchema>;
