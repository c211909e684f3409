// Poll routes: MSC3381 polls and votes.
import { pathParams, eventId, displayName } from "./schemas.ts";
import { proofBody } from "../../rest/schemas.ts";
import { GRAPHQL_INT } from "../../rest/graphql-int.ts";
import { pagePath } from "../../rest/route-helpers.ts";
import { visitorWriteRoute } from "../../rest/visitor-write-route.ts";
import type { Route } from "../../rest/route.ts";
import { createPoll as createPollWrite } from "./operations/create-poll.ts";
import { vote as voteWrite } from "./operations/vote.ts";

export const createPoll = visitorWriteRoute({
  operationId: "createPoll",
  method: "POST",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/polls",
  tag: "Polls",
  summary: "Create a poll (queued); it is listed as a comment with content.type poll.",
  description:
    'Sent as an m.room.message with msgtype org.matrix.msc3381.poll.start; answer ids are "0", "1", … in option order; the fallback body is the question and the numbered options. Question 1-500 and options 1-200 grapheme clusters (no leading/trailing whitespace, no control characters), 2-20 options, max_selections only 1. Signature array: ["CREATE_POLL", site_id, page_slug, [question, [option, …], max_selections], reply_to, thread_root, challenge, 1].',
  auth: "author-proof",
  operation: createPollWrite,
  idempotencyKey: true,
  params: pagePath,
  body: proofBody(
    {
      question: {
        type: "string",
        description: "1-500 grapheme clusters, no leading/trailing whitespace, no control characters.",
      },
      options: {
        type: "array",
        minItems: 2,
        maxItems: 20,
        items: { type: "string" },
        description: '2-20 options, each 1-200 grapheme clusters; answer ids are "0", "1", … in this order.',
      },
      max_selections: { type: ["integer", "null"], ...GRAPHQL_INT, description: "Only 1 is accepted (the default)." },
      display_name: displayName,
      reply_to: eventId,
      thread_root: eventId,
    },
    ["question", "options"],
  ),
  problems: { 404: ["comment-not-found"], 409: ["comment-redacted"] },
});

export const vote = visitorWriteRoute({
  operationId: "vote",
  method: "POST",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/polls/{poll_id}/votes",
  tag: "Polls",
  summary: "Vote on a poll; a newer vote replaces the visitor's earlier one.",
  description:
    'Sent as an m.poll.response (MSC3381). option_id must be an answer id of the poll (400 otherwise). Signature array: ["VOTE", site_id, page_slug, poll_id, option_id, challenge, 1] with poll_id decoded.',
  auth: "author-proof",
  operation: voteWrite,
  idempotencyKey: false,
  params: { ...pagePath, poll_id: pathParams.poll_id },
  body: proofBody({ option_id: { type: "string", description: 'The answer id: "0", "1", … in option order.' } }, [
    "option_id",
  ]),
  problems: { 404: ["comment-not-found", "poll-not-found"], 409: ["comment-redacted"] },
});

export const pollRoutes: Route[] = [createPoll, vote];
