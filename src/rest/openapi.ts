// The OpenAPI 3.1 document, generated from the route table (npm run generate writes it to
// openapi/openapi.json; GET /api/v1/openapi.json serves the same document).
//
// OpenAPI 3.1 has no QUERY operation (3.2 adds one), so QUERY routes are described under the
// path-item extension `x-query`, an Operation Object like any other.
import { OpenApiBuilder, type OperationObject, type PathItemObject, type ParameterObject } from "openapi3-ts/oas31";
import type { Route } from "./route.ts";
import { components } from "./schemas.ts";
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE } from "./problem.ts";

const AUTH_NOTES: Record<Route["auth"], string> = {
  public: "Public.",
  "author-proof": "Author proof: author_public_key, author_signature and challenge_response in the body.",
  "site-write": "Site write auth: an allowed Origin, or X-Service-Timestamp + X-Service-Signature (HMAC) for sites with a secret. Author proof in the body.",
  operator: "Operator: Authorization: Bearer <operator token>.",
};

const STATUS_TEXT: Record<number, string> = { 400: "Invalid request", 403: "Not authorized", 404: "Not found", 409: "Conflict", 410: "Gone", 415: "Unsupported media type", 429: "Rate limited", 500: "Server error", 503: "Unavailable" };

export function buildOpenApi(routes: Route[], version: string): Record<string, unknown> {
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion("3.1.0")
    .addTitle("Matrix comment service")
    .addVersion(version)
    .addDescription(
      "Backend-only comment service backed by a Matrix homeserver. Visitor writes carry an Ed25519 author proof and a proof-of-work answer and are queued (202); reads use the QUERY method (see x-query) and come from a projected read model; live updates are SSE. Every error is RFC 9457 problem details with a stable `code`; problem `type` URIs are " +
        PROBLEM_TYPE_BASE +
        "<code>.",
    );
  for (const [name, schema] of Object.entries(components)) builder.addSchema(name, schema as never);
  const paths = new Map<string, PathItemObject>();
  for (const route of routes) {
    const item = paths.get(route.path) ?? {};
    const key = route.method === "QUERY" ? "x-query" : (route.method.toLowerCase() as "get");
    (item as Record<string, unknown>)[key] = operation(route);
    paths.set(route.path, item);
  }
  for (const [path, item] of paths) builder.addPath(path, item);
  return builder.getSpec() as unknown as Record<string, unknown>;
}

function operation(route: Route): OperationObject {
  const parameters: ParameterObject[] = Object.entries(route.params ?? {}).map(([name, schema]) => ({
    name,
    in: "path",
    required: true,
    description: schema.description as string | undefined,
    schema: { ...schema, description: undefined } as never,
  }));
  if (route.idempotencyKey) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: true,
      description: "1-255 visible ASCII characters. Retries with the same key and request replay the first response (Idempotent-Replayed: true) for 24 hours.",
      schema: { type: "string" },
    });
  }
  if (route.kind === "stream") {
    parameters.push({ name: "Last-Event-ID", in: "header", required: false, description: "Resume after this event id.", schema: { type: "string" } });
  }
  const responses: OperationObject["responses"] = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const headers = route.method === "QUERY" ? { "Accept-Query": { schema: { type: "string" }, description: "application/json" } } : undefined;
    responses[status] = {
      description: response.description,
      ...(headers ? { headers } : {}),
      ...(response.schema ? { content: { [response.contentType ?? "application/json"]: { schema: response.schema as never } } } : {}),
    };
  }
  for (const [status, codes] of Object.entries(route.problems)) {
    responses[status] = {
      description: `${STATUS_TEXT[Number(status)] ?? "Error"}: ${codes.join(", ")}.`,
      "x-problem-codes": codes,
      ...(Number(status) === 429 ? { headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds: the budget's fixed window." } } } : {}),
      content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: [AUTH_NOTES[route.auth], route.description].filter(Boolean).join("\n\n"),
    tags: [route.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: !route.body.optional, content: { "application/json": { schema: route.body.schema as never } } } }
      : {}),
    responses,
  };
}
