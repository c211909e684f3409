// Meta routes: health, proof-of-work challenges, the OpenAPI document.
import type { OperationRoute, Route, StaticRoute } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";

export const health: OperationRoute = {
  kind: "operation",
  operationId: "getHealth",
  method: "GET",
  path: "/health",
  tag: "Meta",
  summary: "Service health: database, homeserver and queue.",
  auth: "public",
  document: `query Health { health {
    status
    database { status error }
    homeserver { status error }
    queue { status queued failed oldest_queued_age_seconds: oldestQueuedAgeSeconds }
  } }`,
  variables: () => ({}),
  respond: (data) => ({ status: 200, body: data.health }),
  responses: {
    200: {
      description: "The service can serve requests (homeserver status is reported, not required).",
      schema: ref("Health"),
    },
  },
  problems: { 500: ["database-unavailable"] },
};

export const challenge: OperationRoute = {
  kind: "operation",
  operationId: "getChallenge",
  method: "GET",
  path: "/api/v1/challenge",
  tag: "Meta",
  summary: "A proof-of-work challenge for one visitor write.",
  description:
    "Valid for 5 minutes and for one successful request. Answer with challenge_response = <challenge>|<nonce> such that SHA-256(challenge_response) has `difficulty` leading zero bits.",
  auth: "public",
  rateLimit: "challenge",
  document: `query Challenge { challenge { challenge difficulty algorithm expires_at: expiresAt } }`,
  variables: () => ({}),
  respond: (data) => ({
    status: 200,
    body: data.challenge,
    headers: { "Cache-Control": "no-store", Pragma: "no-cache" },
  }),
  responses: { 200: { description: "A fresh challenge.", schema: ref("Challenge") } },
  problems: { 429: ["rate-limited"] },
};

export const openapiDocument = (document: () => unknown): StaticRoute => ({
  kind: "static",
  operationId: "getOpenApiDocument",
  method: "GET",
  path: "/api/v1/openapi.json",
  tag: "Meta",
  summary: "This OpenAPI document.",
  auth: "public",
  respond: () => ({ status: 200, body: document() }),
  responses: { 200: { description: "The OpenAPI 3.2 document.", schema: { type: "object" } } },
  problems: {},
});

export const metaRoutes = (document: () => unknown): Route[] => [health, challenge, openapiDocument(document)];
