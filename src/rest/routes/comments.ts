// Comment routes: the list read and the visitor writes on comments.
import type { OperationRoute } from "../route.ts";
import { ref, requestBodies } from "../schemas.ts";
import { toWireMessage } from "../wire.ts";
import { MESSAGE_FIELDS, pagePath, pageVariables } from "./shared.ts";

export const listComments: OperationRoute = {
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

export const postComment: OperationRoute = {
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
