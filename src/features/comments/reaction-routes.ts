// Reaction routes: m.reaction annotations on a comment (204, idempotent).
import { pathParams } from "./schemas.ts";
import { proofBody } from "../../rest/schemas.ts";
import { pagePath } from "../../rest/route-helpers.ts";
import { visitorWriteRoute } from "../../rest/visitor-write-route.ts";
import type { Route } from "../../rest/route.ts";
import { react as reactWrite } from "./operations/react.ts";
import { unreact as unreactWrite } from "./operations/unreact.ts";

const reactionsPath = "/api/v1/sites/{site_id}/pages/{page_slug}/comments/{comment_id}/reactions";
const commentParams = { ...pagePath, comment_id: pathParams.comment_id };

export const react = visitorWriteRoute({
  operationId: "addReaction",
  method: "POST",
  path: reactionsPath,
  tag: "Reactions",
  summary: "React to a comment.",
  description:
    'Sent as an m.reaction from the visitor\'s virtual user. 204 also when the visitor already reacted with that key. The key is trimmed, then must be 1-32 grapheme clusters without control characters. Signature array: ["REACT", site_id, page_slug, comment_id, key, challenge, 1] with comment_id decoded and key as sent.',
  auth: "author-proof",
  operation: reactWrite,
  idempotencyKey: false,
  params: commentParams,
  body: proofBody(
    {
      key: {
        type: "string",
        description:
          "The reaction key (an emoji): trimmed by the service, then 1-32 grapheme clusters, no control characters.",
      },
    },
    ["key"],
  ),
  problems: { 404: ["comment-not-found"], 409: ["comment-redacted"] },
});

export const unreact = visitorWriteRoute({
  operationId: "removeReaction",
  method: "DELETE",
  path: `${reactionsPath}/{key}`,
  tag: "Reactions",
  summary: "Remove your reaction with this key.",
  description:
    'Redacts the visitor\'s own annotation with this (normalized, percent-encoded) key; 204 also when there is none. Signature array: ["UNREACT", site_id, page_slug, comment_id, key, challenge] with both decoded.',
  auth: "author-proof",
  operation: unreactWrite,
  idempotencyKey: false,
  params: { ...commentParams, key: pathParams.key },
  body: proofBody({}, []),
  problems: { 404: ["comment-not-found"] },
});

export const reactionRoutes: Route[] = [react, unreact];
