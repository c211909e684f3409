// The OpenAPI 3.2 document, generated from the route table (npm run generate writes it to
// openapi/openapi.json; GET /api/v1/openapi.json serves the same document). QUERY routes are
// `query` operations; SSE routes describe each event with `itemSchema`.
import {
  OpenApiBuilder,
  type HeadersObject,
  type OperationObject,
  type ParameterObject,
  type PathItemObject,
  type ResponsesObject,
  type SecurityRequirementObject,
} from "openapi3-ts/oas32";
import type { Auth, Route } from "./route.ts";
import { isRateLimited } from "./rate-limits.ts";
import { referencedComponents, type JSONSchema } from "./schemas.ts";
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE } from "./problem.ts";
import { HOMESERVER_RETRY_AFTER_SECONDS } from "../config/limits.ts";

/**
 * Descriptions of the tags routes use; the document lists the tags in use (one missing here
 * is listed without a description, which test/integration/generated.test.ts refuses).
 */
const TAGS: Record<string, string> = {
  Meta: "Service health, proof-of-work challenges and this document.",
  Sites: "Site registration, origin verification, secrets and retirement.",
  Comments: "Reading, writing and following a page's comments.",
  Reactions: "Visitor reactions (Matrix annotations) on comments.",
  Polls: "Visitor polls (MSC3381) and votes; a poll is listed as a comment.",
  Locations: "Shared locations (MSC3488); a location is listed as a comment.",
  Rooms: "A page's Matrix room: its metadata, moderators and the site and page roles.",
  Visitors: "Visitor profiles, avatars and media uploads.",
  Stickers: "A site's sticker packs.",
  Media: "The signed media proxy: the homeserver's media, as the signed URLs reads hand out.",
  Governance: "Site and page roles, claims and room upgrades.",
  Operator: "Operator administration (operator token).",
  Feeds: "Atom feeds of a site's and a page's newest comments.",
  Webhooks: "A site's signed webhook endpoints (Standard Webhooks) and their delivery log.",
  Dashboard: "Signing in to dashboards with a Matrix account (OpenID); dashboards then use /graphql.",
};

const SECURITY_SCHEMES = {
  operatorToken: {
    type: "http",
    scheme: "bearer",
    description:
      "The operator token (`security.operator_token`). Operator routes refuse requests without it with 403 invalid-operator-token (never 401).",
  },
  claimToken: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Claim-Token",
    description: "The site's claim token, returned once by site registration; proves site ownership.",
  },
  requestTimestamp: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Timestamp",
    description:
      "HMAC request signature, part 1: Unix time in whole seconds (decimal), within ±5 minutes of the service's clock. Always sent together with X-Service-Signature.",
  },
  requestSignature: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Signature",
    description:
      'HMAC request signature, part 2: lowercase hex HMAC-SHA256 keyed with the site secret over `timestamp + "\\n" + METHOD + "\\n" + target + "\\n" + sha256_hex(raw body)`, where target is the path plus `?query` as sent.',
  },
} as const;

/** The empty requirement `{}` is the no-credential alternative (an allowed browser Origin). */
const SECURITY: Record<Auth, SecurityRequirementObject[]> = {
  public: [],
  "author-proof": [],
  "site-write": [{}, { requestTimestamp: [], requestSignature: [] }],
  operator: [{ operatorToken: [] }],
  claim: [{ claimToken: [] }],
};

const AUTH_NOTES: Record<Auth, string> = {
  public: "Public.",
  "author-proof":
    "Author proof: author_public_key, author_signature and challenge_response in the body (in the query when the body is raw bytes).",
  "site-write":
    'Site write auth: either no credential, with an `Origin` that is one of the site\'s allowed origins (browser writes), or the HMAC request signature (X-Service-Timestamp + X-Service-Signature), which sites with a secret require; each signature is accepted once (403 replayed-request-signature). A site registered through the API accepts no writes until it has verified an origin (403 site-not-verified), except, under `security.verification_policy = "optional"`, one with a server-generated id, which accepts writes from any Origin until it verifies one. Author proof in the body.',
  operator:
    "Operator: Authorization: Bearer <operator token>. The route exists only when `security.operator_token` is set; without it every operator path is 404 not-found.",
  claim:
    "Claim: X-Service-Claim-Token: <the site's claim token>; missing or wrong (also once the site is retiring): 403 invalid-claim-token.",
};

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request",
  403: "Not authorized",
  404: "Not found",
  409: "Conflict",
  410: "Gone",
  413: "Content too large",
  415: "Unsupported media type",
  429: "Rate limited",
  500: "Server error",
  502: "Bad gateway",
  503: "Unavailable",
};

/** The document of `routes`; `components` are the schemas their `$ref`s name (every one must be there). */
export function buildOpenApi(
  routes: Route[],
  components: Record<string, JSONSchema>,
  version: string,
): Record<string, unknown> {
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion("3.2.0")
    .addTitle("Matrix comment service")
    .addVersion(version)
    .addDescription(
      "Backend-only comment service backed by a Matrix homeserver. Visitor writes carry an Ed25519 author proof and a proof-of-work answer and are queued (202); reads use the QUERY method with a JSON body and come from a projected read model; live updates are SSE. Every error is RFC 9457 problem details (`application/problem+json`) with a stable `code`; problem `type` URIs are " +
        PROBLEM_TYPE_BASE +
        "<code>. The API never answers 401. A request the HTTP parser cannot read (unknown method, invalid bytes in the target or a header, conflicting Content-Length) is answered 400 bad-request, headers over the size limit 431 request-header-fields-too-large, a request not received in time 408 request-timeout, each as problem details, and the connection is closed.",
    )
    .addServer({ url: "/", description: "The service that serves this document." });
  for (const [name, schema] of Object.entries(components)) builder.addSchema(name, schema as never);
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) builder.addSecurityScheme(name, scheme);
  for (const tag of new Set(routes.map((r) => r.tag)))
    builder.addTag({ name: tag, ...(TAGS[tag] ? { description: TAGS[tag] } : {}) });
  const paths = new Map<string, PathItemObject>();
  for (const route of routes) {
    const item = paths.get(route.path) ?? {};
    item[route.method.toLowerCase() as "get"] = operation(route);
    paths.set(route.path, item);
  }
  for (const [path, item] of paths) builder.addPath(path, item);
  const spec = builder.getSpec();
  const missing = referencedComponents(spec).filter((name) => !(name in components));
  if (missing.length > 0)
    throw new Error(`The OpenAPI document refers to undeclared components: ${[...new Set(missing)].join(", ")}`);
  return spec as unknown as Record<string, unknown>;
}

function operation(route: Route): OperationObject {
  const parameter = (
    where: "path" | "query",
    name: string,
    schema: JSONSchema,
    required: boolean,
  ): ParameterObject => ({
    name,
    in: where,
    required,
    description: schema.description as string | undefined,
    schema: { ...schema, description: undefined } as never,
  });
  const parameters = [
    ...Object.entries(route.params ?? {}).map(([name, schema]) => parameter("path", name, schema, true)),
    ...Object.entries(route.query?.properties ?? {}).map(([name, schema]) =>
      parameter("query", name, schema, route.query!.required.includes(name)),
    ),
  ];
  if (route.idempotencyKey) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: true,
      description:
        "1-255 visible ASCII characters. Retries with the same key and request replay the first response (Idempotent-Replayed: true) for 24 hours.",
      schema: { type: "string" },
    });
  }
  if (route.kind === "stream") {
    parameters.push({
      name: "Last-Event-ID",
      in: "header",
      required: false,
      description: "Resume after this event id.",
      schema: { type: "string" },
    });
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: [AUTH_NOTES[route.auth], route.description].filter(Boolean).join("\n\n"),
    tags: [route.tag],
    security: SECURITY[route.auth],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !route.body.optional,
            content: { "application/json": { schema: route.body.schema as never } },
          },
        }
      : {}),
    ...(route.rawBody
      ? {
          requestBody: {
            required: true,
            description: route.rawBody.description,
            content: {
              "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } },
            },
          },
        }
      : {}),
    responses: { ...successResponses(route), ...problemResponses(route) },
  };
}

function successResponses(route: Route): ResponsesObject {
  const responses: ResponsesObject = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const headers: HeadersObject = {};
    for (const [name, description] of Object.entries(response.headers ?? {}))
      headers[name] = { description, schema: { type: "string" } };
    if (route.method === "QUERY")
      headers["Accept-Query"] = { description: "application/json", schema: { type: "string" } };
    if (route.idempotencyKey)
      headers["Idempotent-Replayed"] = {
        description: "`true` when this is the replay of an earlier identical request.",
        schema: { const: "true" },
      };
    const contentType = response.contentType ?? "application/json";
    // An event stream is described per event: each `data:` is the schema's JSON.
    const media =
      contentType === "text/event-stream"
        ? {
            itemSchema: {
              type: "object",
              required: ["data"],
              properties: {
                id: { type: "string" },
                data: { type: "string", contentMediaType: "application/json", contentSchema: response.schema },
              },
            },
          }
        : { schema: response.schema };
    // A binary body is described by its media types alone (no schema: the bytes are not JSON).
    const content = response.binary
      ? Object.fromEntries(response.binary.map((type) => [type, {}]))
      : response.schema
        ? { [contentType]: media as never }
        : null;
    responses[status] = {
      description: response.description,
      ...(Object.keys(headers).length ? { headers } : {}),
      ...(content ? { content } : {}),
    };
  }
  return responses;
}

/**
 * The route's own problem codes plus those the adapter (src/rest/api.ts) and the HTTP server
 * produce for every route, or for every route with the feature: bodies, idempotency keys,
 * rate limits, streams, auth.
 */
function problemResponses(route: Route): ResponsesObject {
  const codes = new Map<number, Set<string>>();
  const add = (status: number, ...names: string[]) =>
    names.forEach((name) => (codes.get(status) ?? codes.set(status, new Set()).get(status)!).add(name));
  for (const [status, names] of Object.entries(route.problems)) add(Number(status), ...names);
  if (route.body) add(415, "unsupported-media-type");
  if (route.idempotencyKey) add(400, "idempotency-key-required", "invalid-idempotency-key");
  if (isRateLimited(route) || route.kind === "stream") add(429, "rate-limited");
  if (route.auth === "operator") {
    add(403, "invalid-operator-token");
    add(404, "not-found");
  }
  if (route.auth === "claim") {
    add(403, "invalid-claim-token");
    add(404, "site-not-found");
  }
  if (route.auth === "site-write") {
    add(
      403,
      "site-not-verified",
      "origin-not-allowed",
      "signature-required",
      "invalid-request-signature",
      "replayed-request-signature",
    );
    add(404, "site-not-found");
    add(410, "site-retired");
  }
  // Whatever the route: a badly percent-encoded target, parameters or body are refused, every
  // request body is read under a size cap, an Authorization header must be a bearer token
  // (src/security/bearer.ts), and any failure can be unexpected.
  add(400, "validation-error");
  add(403, "malformed-authorization");
  add(413, "payload-too-large");
  add(500, "internal-error");
  const responses: ResponsesObject = {};
  for (const [status, set] of codes) {
    const names = [...set];
    responses[status] = {
      description: `${STATUS_TEXT[status] ?? "Error"}: ${names.join(", ")}.`,
      "x-problem-codes": names,
      ...(status === 429
        ? {
            headers: {
              "Retry-After": {
                schema: { type: "integer" },
                description:
                  "The budget's fixed window in seconds: 3600 for hourly budgets, 60 for per-minute ones (claim-token attempts, operator API). A constant, not the time left.",
              },
            },
          }
        : {}),
      ...(set.has("homeserver-unavailable")
        ? {
            headers: {
              "Retry-After": {
                schema: { type: "integer" },
                description: `With homeserver-unavailable: ${HOMESERVER_RETRY_AFTER_SECONDS} seconds, a constant.`,
              },
            },
          }
        : {}),
      content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  return responses;
}
