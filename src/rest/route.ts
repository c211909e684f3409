// The shape of an entry in the route table (src/features/*/routes.ts), from which the HTTP routing,
// validation, handlers and the OpenAPI document are all derived.
import type { FromSchema, JSONSchema as TypedSchema } from "json-schema-to-ts";
import type { JSONSchema } from "./schemas.ts";
import type { RateLimitName } from "../config/limits.ts";
import type { Config } from "../config/config.ts";
import type { Readable } from "node:stream";
import type { AnyWriteOperation } from "../writes/operation.ts";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "QUERY";

/**
 * Who may call a route; the adapter enforces it before the operation runs:
 * - public: anyone;
 * - author-proof: a visitor write signed by an Ed25519 key (verified by the write pipeline,
 *   which knows the operation's signature array);
 * - site-write: author-proof plus the site's write auth (allowed Origin or HMAC headers),
 *   checked by the adapter against {site_id};
 * - operator: the operator bearer token;
 * - claim: the site's claim token (X-Service-Claim-Token) for {site_id}, checked by the adapter
 *   (Sites.requireClaim): 404 for an unregistered site, 403 invalid-claim-token otherwise.
 */
export type Auth = "public" | "author-proof" | "site-write" | "operator" | "claim";

/** A request body's TypeScript type, derived from its JSON Schema (the schema is the one source). */
export type BodyOf<S> = 0 extends 1 & S
  ? Record<string, unknown>
  : S extends TypedSchema
    ? FromSchema<S>
    : Record<string, unknown>;

/** What a route's operation gets: path and query parameters, the validated body (defaults applied), headers. */
export interface RouteInput<Body = Record<string, unknown>> {
  params: Record<string, string>;
  query: Record<string, string>;
  body: Body;
  headers: Record<string, string | undefined>;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface RouteBase {
  operationId: string;
  method: Method;
  /** OpenAPI-style path template, e.g. /api/v1/sites/{site_id}. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: Auth;
  /**
   * The route's rate-limit group (src/config/limits.ts), spent per client before anything
   * else, authentication included. Claim routes also spend the claimToken bucket and operator
   * routes the operator budget, without naming them.
   */
  rateLimit?: RateLimitName;
  /** A budget spent only once the request is authenticated (governanceWrite on governance writes). */
  postAuthRateLimit?: RateLimitName;
  /** Path parameter schemas. */
  params?: Record<string, JSONSchema & { description?: string }>;
  /** Query parameter schemas; `required` lists the ones that must be present. */
  query?: { properties: Record<string, JSONSchema & { description?: string }>; required: string[] };
  /** JSON request body: its schema, and whether it may be omitted. */
  body?: { schema: JSONSchema; optional: boolean };
  /** A raw (binary) request body instead of a JSON one; the operation reads the bytes from its request. */
  rawBody?: RawBody;
  /** Whether the Idempotency-Key header is required. */
  idempotencyKey?: boolean;
  /** Successful responses: status → description and schema (or content type for streams). */
  responses: Record<
    number,
    {
      description: string;
      schema?: JSONSchema;
      contentType?: string;
      headers?: Record<string, string>;
      binary?: readonly string[];
    }
  >;
  /** Error statuses this route can answer, with their problem codes. */
  problems: Record<number, string[]>;
}

/**
 * A binary request body (`application/octet-stream` in the OpenAPI document; any Content-Type is
 * accepted). Path and query parameters are validated before it is read, and it is read under
 * `maxBytes`, which may depend on them (e.g. the kind of a `mime` parameter): a larger declared
 * Content-Length is refused at once, a larger chunked body as soon as it passes the cap (413
 * payload-too-large), never buffered beyond it.
 */
export interface RawBody {
  description: string;
  maxBytes: (query: Record<string, string>, config: Config) => number;
  /**
   * The query parameters an Idempotency-Key fingerprint covers besides method, path and body
   * hash. The author proof parameters never count: a retry signs a fresh challenge.
   */
  fingerprintQuery: readonly string[];
  /** Checks of the request that need no bytes (its proof's challenge, say), run before the body is read. */
  admit?: (input: Pick<RouteInput, "params" | "query" | "headers">, services: RouteServices) => Promise<void>;
}

/** What a GraphQL operation answers: its data, JSON by field (a route names the shape it reads, or narrows). */
export type GraphQLData = Record<string, unknown>;

/**
 * A route that runs a GraphQL query or mutation in-process and maps its result.
 * `BodySchema` is the route's request body schema (`typeof requestBodies.x`): `body.schema` must
 * be that very schema, and the operation's input is typed from it.
 */
export interface OperationRoute<
  Data = GraphQLData,
  // biome-ignore lint/suspicious/noExplicitAny: BodyOf (a conditional type) makes the schema parameter invariant; as any, a route typed by its own body schema stays an entry of the route table.
  BodySchema = any,
> extends RouteBase {
  body?: { schema: BodySchema & JSONSchema; optional: boolean };
  kind: "operation";
  /** The GraphQL document (one operation, plus fragments). */
  document: string;
  // Methods (their parameters bivariant), so that a route typed with its own body and data is a Route.
  variables(input: RouteInput<BodyOf<BodySchema>>): Record<string, unknown>;
  respond(data: Data): RouteResult;
  /** A public read answered from the read cache (src/rest/cached-reads.ts) while nothing it shows changed. */
  cache?: RouteCache;
  /** The visitor write a visitor-write route runs (src/rest/visitor-write-route.ts): the worker's list of writes derives from these. */
  write?: AnyWriteOperation;
}

/**
 * How a public read is cached: what invalidates its bodies (changes of its page, or of its
 * site), and how a personalized read derives from the cached anonymous one. (With the cache off,
 * the route's own operation runs with the personal variables: it must answer the same body.)
 */
export interface RouteCache {
  /** page: its page's changes drop it; site: its site's (Space) changes; pages: a change of any page of its site. */
  scope: "page" | "site" | "pages";
  personal?: {
    /** Variables that make a read personal; the anonymous read has them null. */
    variables: string[];
    /** One more operation for the personal part (it verifies the personalization). */
    document: string;
    // Methods (their parameters bivariant): each route declares its own body's and data's shapes.
    overlayVariables(variables: Record<string, unknown>, body: unknown): Record<string, unknown>;
    /** The personal body: the anonymous body with the overlay operation's data applied (the same object when nothing applies). */
    overlay(body: unknown, data: GraphQLData): unknown;
  };
}

/** A route served as server-sent events from a GraphQL subscription. */
export interface StreamRoute<Data = GraphQLData> extends RouteBase {
  kind: "stream";
  document: string;
  variables: (input: RouteInput) => Record<string, unknown>;
  /** One SSE message per subscription result; `id` is the event's position (a decimal integer). */
  frame(data: Data): { id: string; data: unknown };
  /**
   * The subscription's resume variables. Clients that differ only in `after` share one
   * subscription per instance, run from its position on (`after` null); each client first
   * reads its own gap with `after` and `until` (the shared one's position), a subscription
   * that ends there, then joins it.
   */
  resume: { after: string; until: string };
}

/** A route answered without GraphQL (the OpenAPI document itself). */
export interface StaticRoute extends RouteBase {
  kind: "static";
  respond: () => RouteResult;
}

/**
 * What binary routes answer from: each feature with such a route adds what it uses by
 * augmenting this interface (`declare module`), and the composition root provides it.
 */
export interface RouteServices {}

/**
 * A route whose success body is bytes streamed to the client (the media proxy, the Atom feeds), answered
 * without GraphQL: `respond` throws DomainErrors for its failures before any byte is sent; a
 * stream that fails later is cut off (the connection reset), never ended as if complete. Its
 * success response lists the body's media types in `binary`.
 */
export interface BinaryRoute extends RouteBase {
  kind: "binary";
  /**
   * `base`: what absolute URLs in the answer are built on (the public base URL, else the
   * request's); null: unknown. A body-less answer (a 304 to a conditional GET) has `status` and a null body.
   */
  respond: (
    input: RouteInput,
    services: RouteServices,
    base: string | null,
  ) => Promise<{ status?: number; headers: Record<string, string>; body: Readable | null }>;
}

export type Route = OperationRoute | StreamRoute | StaticRoute | BinaryRoute;
