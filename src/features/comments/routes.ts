// Comment routes: the list read and the visitor writes on comments.
import type { GraphQLData, OperationRoute, Route } from "../../rest/route.ts";
import {
  MESSAGE_FIELDS,
  PENDING_FIELDS,
  pathParams,
  requestBodies,
  toWireMessage,
  type MessagePageBody,
  type SelectedMessage,
  eventId,
  displayName,
  formatted,
} from "./schemas.ts";
import { authorProof, nullableString, proofBody, ref } from "../../rest/schemas.ts";
import { GRAPHQL_INT } from "../../rest/graphql-int.ts";
import { visitorWriteRoute } from "../../rest/visitor-write-route.ts";
import { pagePath, pageVariables, sitePath } from "../../rest/route-helpers.ts";
import { postComment as postCommentWrite } from "./operations/post-comment.ts";
import { editComment as editCommentWrite } from "./operations/edit-comment.ts";
import { deleteComment as deleteCommentWrite } from "./operations/delete-comment.ts";

/** What the list read's document selects. */
type ListData = {
  comments: {
    data: SelectedMessage[];
    meta: MessagePageBody["meta"];
    pinned: SelectedMessage[];
    closed: boolean;
    pending: MessagePageBody["pending"];
  };
};

export const listComments: OperationRoute<ListData, typeof requestBodies.listComments> = {
  kind: "operation",
  operationId: "listComments",
  method: "QUERY",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/comments",
  tag: "Comments",
  summary: "List a page's comments (chronological; order desc reverses; order top: most reactions first).",
  description:
    'An unregistered site yields 404; a registered site without comments yields 200 with an empty page. With author_public_key and author_signature (over ["QUERY_COMMENTS", site_id, page_slug]) the read is personalized: reactions carry `mine` for that visitor; a proof that does not verify is 403 invalid-signature.',
  auth: "public",
  rateLimit: "publicRead",
  params: pagePath,
  body: { schema: requestBodies.listComments, optional: true },
  document: `query ListComments($siteId: String!, $pageSlug: String!, $page: Int, $perPage: Int, $order: CommentOrder, $authorPublicKey: String, $authorSignature: String) {
    comments(siteId: $siteId, pageSlug: $pageSlug, page: $page, perPage: $perPage, order: $order, authorPublicKey: $authorPublicKey, authorSignature: $authorSignature) {
      data { ...MessageFields }
      meta { total page per_page: perPage total_pages: totalPages }
      pinned { ...MessageFields }
      closed
      pending { ...PendingFields }
    }
  }${MESSAGE_FIELDS}${PENDING_FIELDS}`,
  variables: (input) =>
    pageVariables(input, {
      page: input.body.page,
      perPage: input.body.per_page,
      order: input.body.order,
      authorPublicKey: input.body.author_public_key ?? null,
      authorSignature: input.body.author_signature ?? null,
    }),
  respond: (data) => ({
    status: 200,
    body: {
      data: data.comments.data.map(toWireMessage),
      meta: data.comments.meta,
      pinned: data.comments.pinned.map(toWireMessage),
      closed: data.comments.closed,
      pending: data.comments.pending,
    },
  }),
  // A personalized read is the anonymous page plus the viewer's own reactions on it (`mine`).
  cache: {
    scope: "page",
    personal: {
      variables: ["authorPublicKey", "authorSignature"],
      document: `query ViewerReactions($siteId: String!, $pageSlug: String!, $eventIds: [String!]!, $authorPublicKey: String, $authorSignature: String) {
        viewerReactions(siteId: $siteId, pageSlug: $pageSlug, eventIds: $eventIds, authorPublicKey: $authorPublicKey, authorSignature: $authorSignature) { eventId key }
        viewerPending(siteId: $siteId, pageSlug: $pageSlug, authorPublicKey: $authorPublicKey, authorSignature: $authorSignature) { ...PendingFields }
      }${PENDING_FIELDS}`,
      overlayVariables: (variables, body: MessagePageBody) => ({
        siteId: variables.siteId,
        pageSlug: variables.pageSlug,
        // Only comments with reactions can have the viewer's.
        eventIds: body.data.filter((m) => m.reactions.length > 0).map((m) => m.event_id),
        authorPublicKey: variables.authorPublicKey,
        authorSignature: variables.authorSignature,
      }),
      overlay: (
        body: MessagePageBody,
        data: { viewerReactions: Array<{ eventId: string; key: string }>; viewerPending: MessagePageBody["pending"] },
      ): MessagePageBody => {
        // The viewer's own held and rejected comments (the cached anonymous page has none).
        if (data.viewerPending.length > 0) body = { ...body, pending: data.viewerPending };
        if (data.viewerReactions.length === 0) return body;
        // The viewer's keys by comment: lookups by the ids as they are, no key strings built per read.
        const mine = new Map<string, Set<string>>();
        for (const { eventId, key } of data.viewerReactions) {
          const keys = mine.get(eventId);
          if (keys) keys.add(key);
          else mine.set(eventId, new Set([key]));
        }
        return {
          ...body,
          data: body.data.map((m) => {
            const keys = mine.get(m.event_id);
            return keys ? { ...m, reactions: m.reactions.map((r) => ({ ...r, mine: keys.has(r.key) })) } : m;
          }),
        };
      },
    },
  },
  responses: { 200: { description: "One page of comments.", schema: ref("MessagePage") } },
  problems: { 400: ["validation-error"], 403: ["invalid-signature"], 404: ["site-not-found"], 429: ["rate-limited"] },
};

export const pageCounts: OperationRoute<GraphQLData, typeof requestBodies.pageCounts> = {
  kind: "operation",
  operationId: "pageCounts",
  method: "QUERY",
  path: "/api/v1/sites/{site_id}/page-counts",
  tag: "Comments",
  summary: "Comment counts of many pages in one read (an index page's badges).",
  description:
    "Per asked page, in the order asked: its standing comments (deleted ones leave the count) and the newest one's time; a page without comments, or unknown, counts 0 with last_comment_at null. At most 200 pages. Cached like the comment lists; any new, edited or deleted comment of the site drops it.",
  auth: "public",
  rateLimit: "publicRead",
  params: sitePath,
  body: { schema: requestBodies.pageCounts, optional: false },
  document: `query PageCounts($siteId: String!, $pages: [String!]!) {
    pageCounts(siteId: $siteId, pages: $pages) { page_slug: pageSlug comment_count: commentCount last_comment_at: lastCommentAt }
  }`,
  variables: (input) => ({ siteId: input.params.site_id, pages: input.body.pages }),
  respond: (data) => ({ status: 200, body: { data: data.pageCounts } }),
  cache: { scope: "pages" },
  responses: { 200: { description: "The counts, in the order asked.", schema: ref("PageCounts") } },
  problems: { 400: ["validation-error"], 404: ["site-not-found"], 429: ["rate-limited"] },
};

const postProblems = { 404: ["comment-not-found", "media-not-found", "sticker-not-found"], 409: ["comment-redacted"] };
const commentPath = "/api/v1/sites/{site_id}/pages/{page_slug}/comments";
const commentParams = { ...pagePath, comment_id: pathParams.comment_id };

export const postComment = visitorWriteRoute({
  operationId: "postComment",
  method: "POST",
  path: commentPath,
  tag: "Comments",
  summary: "Submit a comment; it is queued and later appears with the same submission_id.",
  description:
    "Signature array: [\"POST_COMMENT\", site_id, page_slug, content, reply_to, thread_root, challenge, 1]; with media, media.url in place of content. A media comment posts an upload of this visitor key for this site (POST …/media; sent as m.image, m.video, m.audio or m.file with the upload's info, a voice message with the MSC3245 fields) or a sticker of the site's packs (sent as m.sticker with the pack's description and info). reply_to and thread_root must be live comments of this page; a thread_root must not itself be inside a thread. Text is 1-10000 grapheme clusters; since the event carries it twice (message and signed proof block) and the homeserver caps events at 65,536 bytes, at most about 31,700 bytes of UTF-8 fit (longer: 400 validation-error on content).",
  auth: "site-write",
  operation: postCommentWrite,
  idempotencyKey: true,
  params: pagePath,
  body: {
    type: "object",
    additionalProperties: false,
    required: ["author_public_key", "author_signature", "challenge_response"],
    properties: {
      content: {
        type: "string",
        description:
          "The comment text (1-10000 grapheme clusters); required without media. With an upload it is the caption (the event's body; the filename when absent); with a sticker it is ignored (the pack's description is used). Not signed when media is present.",
      },
      media: {
        type: ["object", "null"],
        description:
          'A media comment: either the result of a visitor media upload (its url must be an upload of this visitor key for this site: 404 media-not-found otherwise; type, size, dimensions and voice come from the upload), or a sticker reference {kind: "sticker", url} whose url is an image of one of the site\'s sticker packs (404 sticker-not-found otherwise). The signature covers media.url in place of content.',
        required: ["url"],
        additionalProperties: false,
        properties: {
          kind: {
            enum: ["image", "video", "audio", "file", "sticker"],
            description: "sticker for a pack image; otherwise informative (the upload's type decides).",
          },
          url: { type: "string", pattern: "^mxc://", description: "The upload's (or the pack image's) mxc:// URL." },
          filename: nullableString,
          mimetype: { type: "string" },
          size: { type: "integer", ...GRAPHQL_INT },
          voice: {
            type: "boolean",
            description: "true sends an audio upload as a voice message (MSC3245), as voice=true on the upload does.",
          },
        },
      },
      ...formatted,
      display_name: displayName,
      reply_to: eventId,
      thread_root: eventId,
      ...authorProof,
    },
  },
  problems: postProblems,
});

const editDescription =
  'Only the visitor key that wrote the comment may edit it (403 not-author; a Matrix account\'s comment: 403 not-manageable); only text comments (409 not-editable); not a deleted one (409 comment-redacted). Signature array: ["EDIT_COMMENT", site_id, page_slug, comment_id, content, challenge, 1] with comment_id decoded. Sent as an m.replace edit; about 21,000 bytes of UTF-8 fit (the edit carries the text three times). Use the same path form for all retries of one Idempotency-Key.';
const editProblems = {
  403: ["not-author", "not-manageable"],
  404: ["comment-not-found"],
  409: ["comment-redacted", "not-editable"],
};

export const editComment = visitorWriteRoute({
  operationId: "editComment",
  method: "PATCH",
  path: `${commentPath}/{comment_id}`,
  tag: "Comments",
  summary: "Edit your comment (queued).",
  description: editDescription,
  auth: "site-write",
  operation: editCommentWrite,
  idempotencyKey: true,
  params: commentParams,
  body: proofBody(
    { content: { type: "string", description: "The new text (1-10000 grapheme clusters)." }, ...formatted },
    ["content"],
  ),
  problems: editProblems,
});

export const editCommentByBody = visitorWriteRoute({
  operationId: "editCommentByBody",
  method: "PATCH",
  path: commentPath,
  tag: "Comments",
  summary: "Edit your comment, comment_id in the body (alternate form).",
  description: editDescription,
  auth: "site-write",
  operation: editCommentWrite,
  idempotencyKey: true,
  params: pagePath,
  body: proofBody(
    {
      comment_id: { type: "string", description: "The comment to edit." },
      content: { type: "string", description: "The new text (1-10000 grapheme clusters)." },
      ...formatted,
    },
    ["comment_id", "content"],
  ),
  problems: editProblems,
});

const deleteDescription =
  'Redacts the comment as the visitor: only the key that wrote it (403 not-author; a Matrix account\'s comment: 403 not-manageable). The body carries only the author proof; signature array ["DELETE_COMMENT", site_id, page_slug, comment_id, challenge, 1] with comment_id decoded. The list then shows a tombstone (status redacted) and SSE sends message_deleted with this submission_id.';
const deleteProblems = { 403: ["not-author", "not-manageable"], 404: ["comment-not-found"], 409: ["comment-redacted"] };

export const deleteComment = visitorWriteRoute({
  operationId: "deleteComment",
  method: "DELETE",
  path: `${commentPath}/{comment_id}`,
  tag: "Comments",
  summary: "Delete your comment (queued redaction).",
  description: deleteDescription,
  auth: "site-write",
  operation: deleteCommentWrite,
  idempotencyKey: true,
  params: commentParams,
  body: proofBody({}, []),
  problems: deleteProblems,
});

export const deleteCommentByQuery = visitorWriteRoute({
  operationId: "deleteCommentByQuery",
  method: "DELETE",
  path: commentPath,
  tag: "Comments",
  summary: "Delete your comment, ?comment_id= (alternate form).",
  description: deleteDescription,
  auth: "site-write",
  operation: deleteCommentWrite,
  idempotencyKey: true,
  params: pagePath,
  query: { properties: { comment_id: pathParams.comment_id }, required: ["comment_id"] },
  body: proofBody({}, []),
  problems: deleteProblems,
});

export const commentRoutes: Route[] = [
  listComments,
  pageCounts,
  postComment,
  editComment,
  editCommentByBody,
  deleteComment,
  deleteCommentByQuery,
];
