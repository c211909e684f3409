// The shared pieces of the REST surface's JSON Schemas (2020-12, as OpenAPI 3.2 uses them): the
// problem document, pagination, the common path parameters and the helpers every feature's
// schemas.ts builds on. Each feature declares its own shapes there; src/app/api-components.ts
// assembles the OpenAPI components. A shape's schema is its one declaration: request bodies are
// validated against it and typed from it (BodyOf in route.ts), responses typed from it (WireOf).
import type { FromSchema, JSONSchema as TypedSchema } from "json-schema-to-ts";
import { DEFAULT_PAGE, DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from "../core/pagination.ts";

export type JSONSchema = Record<string, unknown>;

const COMPONENT_PREFIX = "#/components/schemas/";

/** A reference to the OpenAPI component `name` (declared in some feature's schemas.ts). */
export const ref = <const N extends string>(name: N) => ({ $ref: `${COMPONENT_PREFIX}${name}` as const });

/** The component names a schema refers to, nested references included. */
export function referencedComponents(schema: unknown): string[] {
  return [...JSON.stringify(schema).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
}

/** `S` with every component reference replaced by the component's schema (from `C`). */
type Resolved<S, C> = S extends { readonly $ref: `${typeof COMPONENT_PREFIX}${infer N}` }
  ? N extends keyof C
    ? Resolved<C[N], C>
    : never
  : S extends object
    ? { readonly [K in keyof S]: Resolved<S[K], C> }
    : S;

/** The TypeScript type of a response shape, its component references resolved against `C`. */
export type WireOf<S, C = {}> =
  Resolved<S, C> extends infer R extends TypedSchema ? DeclaredMembers<FromSchema<R>> : never;

/** A derived type's declared members only: responses never carry undeclared ones, so the open index signature FromSchema adds is dropped. */
type DeclaredMembers<T> = T extends object ? { [K in keyof T as string extends K ? never : K]: T[K] } : T;

export const slug = { type: "string", pattern: "^[a-z0-9-]{1,64}$" } as const;
export const nullableString = { type: ["string", "null"] } as const;

export const authorProof = {
  author_public_key: { type: "string", description: "base64url Ed25519 public key (32 bytes), unpadded." },
  author_signature: {
    type: "string",
    description: "base64url detached Ed25519 signature (64 bytes) over the operation's canonical JSON array.",
  },
  challenge_response: { type: "string", description: "<challenge>|<nonce>, nonce 1-64 of [A-Za-z0-9]." },
} as const;

/** A visitor write body: the operation's own fields plus the author proof. */
export function proofBody<const P extends Record<string, JSONSchema>, const R extends readonly string[]>(
  properties: P,
  required: R,
) {
  return {
    type: "object",
    additionalProperties: false,
    required: [...required, "author_public_key", "author_signature", "challenge_response"] as const,
    properties: { ...properties, ...authorProof },
  } as const;
}

/** The `page` and `per_page` members of a list body. */
export const paginationProperties = {
  page: {
    type: "integer",
    minimum: 1,
    maximum: MAX_PAGE,
    default: DEFAULT_PAGE,
    description: `1-${MAX_PAGE}; past the last page the list is empty.`,
  },
  per_page: { type: "integer", minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
} as const;

/** The path parameters every feature shares; a feature's own ones are in its schemas.ts. */
export const pathParams = {
  site_id: { ...slug, description: "Site id: lowercase [a-z0-9-], 1-64 characters." },
  page_slug: { ...slug, description: "Page slug: lowercase [a-z0-9-], 1-64 characters." },
} as const;

/** The components of the shared machinery: problems, list metadata and a queued write's answer. */
export const components = {
  Problem: {
    type: "object",
    description: "RFC 9457 problem details.",
    required: ["type", "title", "status", "detail", "code"],
    properties: {
      type: { type: "string", description: "Stable URI ending in the code." },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string" },
      code: { type: "string", description: "Stable machine-readable slug." },
      instance: { type: "string" },
      errors: {
        type: "array",
        items: {
          type: "object",
          required: ["field", "message"],
          properties: { field: { type: "string" }, message: { type: "string" } },
        },
      },
    },
  },
  PaginationMeta: {
    type: "object",
    required: ["total", "page", "per_page", "total_pages"],
    properties: {
      total: { type: "integer" },
      page: { type: "integer" },
      per_page: { type: "integer" },
      total_pages: { type: "integer" },
    },
  },
  SubmissionAccepted: {
    type: "object",
    required: ["submission_id"],
    properties: { submission_id: { type: "string" } },
  },
} as const satisfies Record<string, JSONSchema>;
