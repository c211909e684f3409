// THE route table: the single source of truth for the REST surface. Routing, request
// validation, the handlers (GraphQL operations run in-process) and openapi/openapi.json are
// all derived from these entries.
import type { OperationRoute, Route, RouteInput, StaticRoute, StreamRoute } from "./route.ts";
import { pathParams, ref, requestBodies } from "./schemas.ts";
import { toWireMessage } from "./wire.ts";

const sitePath = { site_id: pathParams.site_id };
const pagePath = { site_id: pathParams.site_id, page_slug: pathParams.page_slug };
const pageVariables = (input: RouteInput) => ({ siteId: input.params.site_id, pageSlug: input.params.page_slug });

/** Every Message in a response is selected through this fragment (aliases give the wire names). */
const MESSAGE_FIELDS = `
fragment MessageFields on Message {
  event_id: eventId submission_id: submissionId room_id: roomId status
  created_at: createdAt origin_server_ts: originServerTs edited_at: editedAt
  reply_to: replyTo thread_root: threadRoot content
  author { type public_key: publicKey mxid display_name: displayName avatar_url: avatarUrl }
  reactions { key count mine }
}`;

const health: OperationRoute = {
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
  responses: { 200: { description: "The service can serve requests (homeserver status is reported, not required).", schema: ref("Health") } },
  problems: { 500: ["database-unavailable"] },
};

const challenge: OperationRoute = {
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
  respond: (data) => ({ status: 200, body: data.challenge, headers: { "Cache-Control": "no-store", Pragma: "no-cache" } }),
  responses: { 200: { description: "A fresh challenge.", schema: ref("Challenge") } },
  problems: { 429: ["rate-limited"] },
};

const registerSite: OperationRoute = {
  kind: "operation",
  operationId: "registerSite",
  method: "POST",
  path: "/api/v1/sites",
  tag: "Sites",
  summary: "Register a site; the claim token is returned once.",
  auth: "public",
  rateLimit: "siteRegistration",
  body: { schema: requestBodies.registerSite, optional: true },
  document: `mutation RegisterSite($siteId: String) { registerSite(siteId: $siteId) { site_id: siteId claim_token: claimToken } }`,
  variables: (input) => ({ siteId: (input.body.site_id as string | undefined) ?? null }),
  respond: (data) => ({ status: 201, body: data.registerSite }),
  responses: { 201: { description: "Registered.", schema: ref("SiteRegistration") } },
  problems: { 400: ["validation-error"], 409: ["site-id-taken"], 429: ["rate-limited"] },
};

const listComments: OperationRoute = {
  kind: "operation",
  operationId: "listComments",
  method: "QUERY",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/comments",
  tag: "Comments",
  summary: "List a page's comments (chronological; order desc reverses).",
  description:
    "An unregistered site yields 404; a registered site without comments yields 200 with an empty page. With author_public_key and author_signature (over [\"QUERY_COMMENTS\", site_id, page_slug]) the read is personalized: reactions carry `mine` for that visitor; a proof that does not verify is 403 invalid-signature.",
  auth: "public",
  rateLimit: "publicRead",
  params: pagePath,
  body: { schema: requestBodies.listComments, optional: true },
  document: `query ListComments($siteId: String!, $pageSlug: String!, $page: Int, $perPage: Int, $order: CommentOrder, $authorPublicKey: String, $authorSignature: String) {
    comments(siteId: $siteId, pageSlug: $pageSlug, page: $page, perPage: $perPage, order: $order, authorPublicKey: $authorPublicKey, authorSignature: $authorSignature) {
      data { ...MessageFields }
      meta { total page per_page: perPage total_pages: totalPages }
    }
  }${MESSAGE_FIELDS}`,
  variables: (input) => ({
    ...pageVariables(input),
    page: input.body.page ?? 1,
    perPage: input.body.per_page ?? 20,
    order: input.body.order ?? "asc",
    authorPublicKey: input.body.author_public_key ?? null,
    authorSignature: input.body.author_signature ?? null,
  }),
  respond: (data) => ({ status: 200, body: { data: data.comments.data.map(toWireMessage), meta: data.comments.meta } }),
  responses: { 200: { description: "One page of comments.", schema: ref("MessagePage") } },
  problems: { 400: ["validation-error"], 403: ["invalid-signature"], 404: ["site-not-found"], 429: ["rate-limited"] },
};

const postComment: OperationRoute = {
  kind: "operation",
  operationId: "postComment",
  method: "POST",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/comments",
  tag: "Comments",
  summary: "Submit a comment; it is queued and later appears with the same submission_id.",
  description:
    'Signature array: ["POST_COMMENT", site_id, page_slug, content, reply_to, thread_root, challenge, 1]. The 202 means the submission is durably stored, not yet in Matrix.',
  auth: "site-write",
  rateLimit: "commentWrite",
  idempotencyKey: true,
  params: pagePath,
  body: { schema: requestBodies.postComment, optional: false },
  document: `mutation PostComment($input: PostCommentInput!) { postComment(input: $input) { submission_id: submissionId replayed } }`,
  variables: (input) => ({
    input: {
      ...pageVariables(input),
      content: input.body.content ?? null,
      media: input.body.media ?? null,
      displayName: input.body.display_name ?? null,
      replyTo: input.body.reply_to ?? null,
      threadRoot: input.body.thread_root ?? null,
      authorPublicKey: input.body.author_public_key,
      authorSignature: input.body.author_signature,
      challengeResponse: input.body.challenge_response,
    },
  }),
  respond: (data) => ({
    status: 202,
    body: { submission_id: data.postComment.submission_id },
    headers: data.postComment.replayed ? { "Idempotent-Replayed": "true" } : undefined,
  }),
  responses: { 202: { description: "Queued (or the replay of an earlier identical request).", schema: ref("SubmissionAccepted") } },
  problems: {
    400: ["validation-error", "idempotency-key-required", "invalid-idempotency-key"],
    403: ["origin-not-allowed", "signature-required", "invalid-request-signature", "invalid-signature", "invalid-PoW"],
    404: ["site-not-found", "comment-not-found"],
    409: ["idempotency-key-reused", "comment-redacted"],
    410: ["site-retired"],
    429: ["rate-limited"],
  },
};

const pageEvents: StreamRoute = {
  kind: "stream",
  operationId: "streamPageEvents",
  method: "GET",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/sse",
  tag: "Comments",
  summary: "Live events of a page as server-sent events.",
  description:
    'Each message is unnamed, with `id:` (send it back as Last-Event-ID to resume) and `data:` {"type", "payload"}. The first message is an `ephemeral` typing snapshot. A comment line is sent as keep-alive at least every 25 s.',
  auth: "public",
  rateLimit: "sse",
  params: pagePath,
  document: `subscription PageEvents($siteId: String!, $pageSlug: String!, $after: Int) {
    pageEvents(siteId: $siteId, pageSlug: $pageSlug, after: $after) { id type message { ...MessageFields } payload }
  }${MESSAGE_FIELDS}`,
  variables: (input) => {
    const last = input.headers["last-event-id"];
    return { ...pageVariables(input), after: last && /^\d{1,15}$/.test(last) ? Number(last) : null };
  },
  frame: (data) => {
    const event = data.pageEvents;
    return { id: String(event.id), data: { type: event.type, payload: event.message ? toWireMessage(event.message) : (event.payload ?? {}) } };
  },
  responses: { 200: { description: "An event stream.", contentType: "text/event-stream", schema: ref("LiveEvent") } },
  problems: { 400: ["validation-error"], 404: ["site-not-found"], 429: ["rate-limited"], 503: ["too-many-streams"] },
};

const openapiDocument = (document: () => unknown): StaticRoute => ({
  kind: "static",
  operationId: "getOpenApiDocument",
  method: "GET",
  path: "/api/v1/openapi.json",
  tag: "Meta",
  summary: "This OpenAPI document.",
  auth: "public",
  respond: () => ({ status: 200, body: document() }),
  responses: { 200: { description: "The OpenAPI 3.1 document.", schema: { type: "object" } } },
  problems: {},
});

export function buildRoutes(document: () => unknown): Route[] {
  return [health, challenge, openapiDocument(document), registerSite, listComments, postComment, pageEvents];
}
