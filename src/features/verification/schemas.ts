// The shapes of origin verification.
import { slug, type JSONSchema } from "../../rest/schemas.ts";
import { MAX_CONFIRM_ATTEMPTS, VERIFICATION_TTL_HOURS } from "./verifications.ts";
import { VERIFICATION_METHODS } from "./verifier.ts";

const verificationMethod = { enum: VERIFICATION_METHODS } as const;

export const components = {
  VerificationStart: {
    type: "object",
    required: ["origin", "token", "expires_at", "methods", "instructions"],
    properties: {
      origin: {
        type: "string",
        description: "The origin, normalized: scheme://host[:port], lowercase, default port dropped.",
      },
      token: { type: "string", description: "The token to publish. A new start for the same origin replaces it." },
      expires_at: {
        type: "string",
        format: "date-time",
        description: `${VERIFICATION_TTL_HOURS} hours after the start; ${MAX_CONFIRM_ATTEMPTS} confirm attempts per token.`,
      },
      methods: {
        type: "array",
        items: verificationMethod,
        description: "The methods confirm tries, in this order; the first proof found wins.",
      },
      instructions: {
        type: "object",
        additionalProperties: false,
        description: "Per chosen method, exactly what to publish where.",
        properties: {
          "well-known": {
            type: "object",
            required: ["url", "content_type", "documents", "description"],
            properties: {
              url: { type: "string", description: "{origin}/.well-known/service.json" },
              content_type: { const: "application/json" },
              documents: {
                type: "array",
                items: { type: "object" },
                description:
                  'Either document proves the token: {"site_id": <id>, "token": <token>} or {"sites": {<id>: <token>, …}}.',
              },
              description: { type: "string" },
            },
          },
          "dns-txt": {
            type: "object",
            required: ["name", "type", "value", "description"],
            properties: {
              name: { type: "string", description: "_service.<host>" },
              type: { const: "TXT" },
              value: { type: "string", description: "service-verification=<token>" },
              description: { type: "string" },
            },
          },
        },
      },
    },
  },
  VerifiedOrigins: {
    type: "object",
    required: ["site_id", "verified_origins"],
    properties: {
      site_id: slug,
      verified_origins: {
        type: "array",
        items: { type: "string" },
        description: "Every origin allowed to write for the site: verified or declared in [sites].",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const requestBodies = {
  startVerification: {
    type: "object",
    additionalProperties: false,
    required: ["origin"],
    properties: {
      origin: { type: "string", description: "scheme://host[:port], http or https, no path." },
      methods: {
        type: "array",
        minItems: 1,
        uniqueItems: true,
        items: verificationMethod,
        description:
          'The order confirm tries them in. Default: ["well-known", "dns-txt"] (only well-known for an IP-address origin).',
      },
    },
  },
  confirmVerification: {
    type: "object",
    additionalProperties: false,
    required: ["origin"],
    properties: { origin: { type: "string", description: "The origin as started." } },
  },
} as const satisfies Record<string, JSONSchema>;
