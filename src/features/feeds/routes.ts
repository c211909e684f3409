// Atom feeds: a site's and a page's newest comments. Not JSON, so answered by a responder of
// their own (no GraphQL operation), conditionally (ETag / Last-Modified → 304).
import { Readable } from "node:stream";
import type { BinaryRoute, Route, RouteInput } from "../../rest/route.ts";
import { pagePath, sitePath } from "../../rest/route-helpers.ts";
import { FEED_ENTRIES } from "../../config/limits.ts";
import type { Feeds } from "./feeds.ts";
import type { FeedScope } from "./feed-store.ts";

declare module "../../rest/route.ts" {
  interface RouteServices {
    feeds: Feeds;
  }
}

const respond =
  (scopeOf: (input: RouteInput) => FeedScope, path: (scope: FeedScope) => string): BinaryRoute["respond"] =>
  async (input, services, base) => {
    const scope = scopeOf(input);
    const answer = await services.feeds.answer(
      scope,
      { ifNoneMatch: input.headers["if-none-match"], ifModifiedSince: input.headers["if-modified-since"] },
      base === null ? null : `${base}${path(scope)}`,
    );
    return {
      status: answer.status,
      headers: answer.headers,
      body: answer.body === null ? null : Readable.from([Buffer.from(answer.body)]),
    };
  };

const description = [
  `Atom 1.0 (RFC 4287): the newest ${FEED_ENTRIES} standing comments, newest first (a deleted comment leaves the feed). Each entry: the comment's URN as id, its author's current name, published and updated times, the text (as type="text", escaped), and a link to the comment on its page (the site's page_url_pattern with #comment-<event id>) when the site has one.`,
  "Conditional: `ETag` (the document's digest) with `If-None-Match`, and `Last-Modified` (the newest comment written, edited or deleted in the feed's scope) with `If-Modified-Since` (used only without If-None-Match); a current copy is answered 304 without a body.",
].join("\n\n");

const responses = {
  200: {
    description: "The feed.",
    binary: ["application/atom+xml"],
    headers: {
      ETag: "The document's digest (strong).",
      "Last-Modified": "The newest comment write, edit or deletion in the feed's scope (absent: no comment yet).",
      "Cache-Control": "`public, max-age=60`",
    },
  },
  304: { description: "The client's copy (If-None-Match / If-Modified-Since) is current; no body." },
};

const problems = { 400: ["validation-error"], 404: ["site-not-found"], 429: ["rate-limited"] };

const siteFeedPath = "/api/v1/sites/{site_id}/feed.atom";
const pageFeedPath = "/api/v1/sites/{site_id}/pages/{page_slug}/feed.atom";

export const siteFeed: BinaryRoute = {
  kind: "binary",
  operationId: "siteFeed",
  method: "GET",
  path: siteFeedPath,
  tag: "Feeds",
  summary: "Atom feed of a site's newest comments, over all its pages.",
  description,
  auth: "public",
  rateLimit: "publicRead",
  params: sitePath,
  respond: respond(
    (input) => ({ siteId: input.params.site_id!, pageSlug: null }),
    (scope) => siteFeedPath.replace("{site_id}", scope.siteId),
  ),
  responses,
  problems,
};

export const pageFeed: BinaryRoute = {
  kind: "binary",
  operationId: "pageFeed",
  method: "GET",
  path: pageFeedPath,
  tag: "Feeds",
  summary: "Atom feed of a page's newest comments.",
  description: `${description}\n\nA page without comments has an empty feed.`,
  auth: "public",
  rateLimit: "publicRead",
  params: pagePath,
  respond: respond(
    (input) => ({ siteId: input.params.site_id!, pageSlug: input.params.page_slug! }),
    (scope) => pageFeedPath.replace("{site_id}", scope.siteId).replace("{page_slug}", scope.pageSlug!),
  ),
  responses,
  problems,
};

export const feedRoutes: Route[] = [siteFeed, pageFeed];
