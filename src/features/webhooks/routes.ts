// Webhook routes: a site's owner (claim token) manages its endpoints and reads their delivery
// log; the operator has the same routes under /api/v1/operator.
import type { GraphQLData, OperationRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { selectionOf } from "../../rest/wire.ts";
import { operatorMirror, sitePath } from "../../rest/route-helpers.ts";
import { components, deliveryQuery, requestBodies } from "./schemas.ts";

const SITE = "/api/v1/sites/{site_id}/webhooks";
const OPERATOR_SITE = "/api/v1/operator/sites/{site_id}/webhooks";
const ENDPOINT = selectionOf(components.WebhookEndpoint, components);
const DELIVERY = selectionOf(components.WebhookDelivery, components);
const endpointParams = {
  ...sitePath,
  webhook_id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,200}$", description: "The endpoint's id." },
} as const;
const endpointVariables = (input: { params: Record<string, string> }) => ({
  siteId: input.params.site_id,
  id: input.params.webhook_id,
});
/** What creating an endpoint or rotating its secret answers in GraphQL. */
type EndpointWithSecret = { endpoint: Record<string, unknown>; secret: string };

const withSecret = (result: EndpointWithSecret) => ({
  ...result.endpoint,
  secret: result.secret,
});

const signing =
  "Each event is POSTed as JSON {type, timestamp, data: {site_id, page_slug, comment_id, comment, link}} (comment as the read API shows it, link from the site's page_url_pattern), signed per Standard Webhooks: headers webhook-id (the same on every attempt of one event), webhook-timestamp (Unix seconds) and webhook-signature `v1,<base64 HMAC-SHA256 over id.timestamp.body>` keyed with the base64-decoded part of the whsec_ secret. Events: comment.created, comment.edited, comment.deleted, comment.held. Delivered at least once: a non-2xx answer, a timeout or no connection is retried with exponential backoff and jitter for 24 hours, then the endpoint is disabled (status, disabled_reason).";

export const createWebhook: OperationRoute<{ createWebhook: EndpointWithSecret }, typeof requestBodies.createWebhook> =
  {
    kind: "operation",
    operationId: "createWebhook",
    method: "POST",
    path: SITE,
    tag: "Webhooks",
    summary: "Register a webhook endpoint; its signing secret is returned once.",
    description: `${signing} The url must be http(s); an IP-literal host on a non-public address is 400 private-destination (unless webhooks.allow_private_destinations), and a host name that resolves to one fails its deliveries. At most 10 endpoints per site (409 too-many-webhooks).`,
    auth: "claim",
    params: sitePath,
    body: { schema: requestBodies.createWebhook, optional: false },
    document: `mutation CreateWebhook($siteId: String!, $url: String!, $events: [String!]) {
    createWebhook(siteId: $siteId, url: $url, events: $events) { endpoint { ${ENDPOINT} } secret }
  }`,
    variables: (input) => ({ siteId: input.params.site_id, url: input.body.url, events: input.body.events ?? null }),
    respond: (data) => ({ status: 201, body: withSecret(data.createWebhook) }),
    responses: {
      201: { description: "The endpoint, with its secret (shown once).", schema: ref("WebhookEndpointWithSecret") },
    },
    problems: { 400: ["validation-error", "private-destination"], 409: ["too-many-webhooks"], 410: ["site-retired"] },
  };

export const listWebhooks: OperationRoute = {
  kind: "operation",
  operationId: "listWebhooks",
  method: "GET",
  path: SITE,
  tag: "Webhooks",
  summary: "A site's webhook endpoints (those declared in [sites] too), oldest first.",
  auth: "claim",
  params: sitePath,
  document: `query Webhooks($siteId: String!) { webhooks(siteId: $siteId) { ${ENDPOINT} } }`,
  variables: (input) => ({ siteId: input.params.site_id }),
  respond: (data) => ({ status: 200, body: { data: data.webhooks } }),
  responses: { 200: { description: "The endpoints.", schema: ref("WebhookEndpointList") } },
  problems: { 400: ["validation-error"] },
};

export const getWebhook: OperationRoute = {
  kind: "operation",
  operationId: "getWebhook",
  method: "GET",
  path: `${SITE}/{webhook_id}`,
  tag: "Webhooks",
  summary: "One webhook endpoint: its status and, when disabled, why.",
  auth: "claim",
  params: endpointParams,
  document: `query Webhook($siteId: String!, $id: String!) { webhook(siteId: $siteId, id: $id) { ${ENDPOINT} } }`,
  variables: endpointVariables,
  respond: (data) => ({ status: 200, body: data.webhook }),
  responses: { 200: { description: "The endpoint.", schema: ref("WebhookEndpoint") } },
  problems: { 400: ["validation-error"], 404: ["webhook-not-found"] },
};

export const updateWebhook: OperationRoute<GraphQLData, typeof requestBodies.updateWebhook> = {
  kind: "operation",
  operationId: "updateWebhook",
  method: "PATCH",
  path: `${SITE}/{webhook_id}`,
  tag: "Webhooks",
  summary: "Change an endpoint's url or events, or enable (retrying its failed deliveries) or disable it.",
  description:
    "An endpoint declared in [sites] can be enabled or disabled only (409 config-declared for url and events).",
  auth: "claim",
  params: endpointParams,
  body: { schema: requestBodies.updateWebhook, optional: false },
  document: `mutation UpdateWebhook($siteId: String!, $id: String!, $url: String, $events: [String!], $enabled: Boolean) {
    updateWebhook(siteId: $siteId, id: $id, url: $url, events: $events, enabled: $enabled) { ${ENDPOINT} }
  }`,
  variables: (input) => ({
    ...endpointVariables(input),
    url: input.body.url ?? null,
    events: input.body.events ?? null,
    enabled: input.body.enabled ?? null,
  }),
  respond: (data) => ({ status: 200, body: data.updateWebhook }),
  responses: { 200: { description: "The endpoint as it is now.", schema: ref("WebhookEndpoint") } },
  problems: { 400: ["validation-error", "private-destination"], 404: ["webhook-not-found"], 409: ["config-declared"] },
};

export const rotateWebhookSecret: OperationRoute<{ rotateWebhookSecret: EndpointWithSecret }> = {
  kind: "operation",
  operationId: "rotateWebhookSecret",
  method: "POST",
  path: `${SITE}/{webhook_id}/secret-rotations`,
  tag: "Webhooks",
  summary: "A new signing secret for an endpoint, returned once; the old one is not used again.",
  description: "Deliveries not yet sent are signed with the new secret. Declared in [sites]: 409 config-declared.",
  auth: "claim",
  params: endpointParams,
  document: `mutation RotateWebhookSecret($siteId: String!, $id: String!) {
    rotateWebhookSecret(siteId: $siteId, id: $id) { endpoint { ${ENDPOINT} } secret }
  }`,
  variables: endpointVariables,
  respond: (data) => ({ status: 200, body: withSecret(data.rotateWebhookSecret) }),
  responses: {
    200: { description: "The endpoint, with its new secret (shown once).", schema: ref("WebhookEndpointWithSecret") },
  },
  problems: { 400: ["validation-error"], 404: ["webhook-not-found"], 409: ["config-declared"] },
};

export const deleteWebhook: OperationRoute = {
  kind: "operation",
  operationId: "deleteWebhook",
  method: "DELETE",
  path: `${SITE}/{webhook_id}`,
  tag: "Webhooks",
  summary: "Delete an endpoint and its delivery log.",
  auth: "claim",
  params: endpointParams,
  document: `mutation DeleteWebhook($siteId: String!, $id: String!) { deleteWebhook(siteId: $siteId, id: $id) }`,
  variables: endpointVariables,
  respond: () => ({ status: 204 }),
  responses: { 204: { description: "Deleted." } },
  problems: { 400: ["validation-error"], 404: ["webhook-not-found"], 409: ["config-declared"] },
};

export const listWebhookDeliveries: OperationRoute = {
  kind: "operation",
  operationId: "listWebhookDeliveries",
  method: "GET",
  path: `${SITE}/{webhook_id}/deliveries`,
  tag: "Webhooks",
  summary: "An endpoint's delivery log, newest first: each event's status, attempts, last answer and latency.",
  auth: "claim",
  params: endpointParams,
  query: deliveryQuery,
  document: `query WebhookDeliveries($siteId: String!, $id: String!, $before: Int, $limit: Int) {
    webhookDeliveries(siteId: $siteId, id: $id, before: $before, limit: $limit) { ${DELIVERY} }
  }`,
  variables: (input) => ({
    ...endpointVariables(input),
    before: input.query.before === undefined ? null : Number(input.query.before),
    limit: input.query.limit === undefined ? 50 : Number(input.query.limit),
  }),
  respond: (data) => ({ status: 200, body: { data: data.webhookDeliveries } }),
  responses: { 200: { description: "The deliveries.", schema: ref("WebhookDeliveryList") } },
  problems: { 400: ["validation-error"], 404: ["webhook-not-found"] },
};

const ownerRoutes = [
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  rotateWebhookSecret,
  deleteWebhook,
  listWebhookDeliveries,
];

const operatorId = (id: string) => `operator${id[0]!.toUpperCase()}${id.slice(1)}`;

/** The operator's mirrors check the site themselves: 404 site-not-found (for the owner, the claim gate's). */
const operatorProblems = (route: OperationRoute) => ({
  ...route.problems,
  404: [...(route.problems[404] ?? []), "site-not-found"],
});

export const webhookRoutes: Route[] = [
  ...ownerRoutes,
  ...ownerRoutes.map((route) =>
    operatorMirror(route, operatorId(route.operationId), route.path.replace(SITE, OPERATOR_SITE), {
      problems: operatorProblems(route),
    }),
  ),
];
