// The live event stream of a page (SSE).
import { validationError } from "../../core/errors.ts";
import type { StreamRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { pagePath, pageVariables } from "../../rest/route-helpers.ts";
import { MESSAGE_FIELDS, toWireMessage, type SelectedMessage } from "../comments/schemas.ts";

/** Event ids travel as GraphQL Int. */
const MAX_EVENT_ID = 2 ** 31 - 1;

/** The resume cursor; absent means only new events. */
function lastEventId(header: string | undefined): number | null {
  if (header === undefined) return null;
  const id = /^\d{1,10}$/.test(header) ? Number(header) : NaN;
  if (!(id <= MAX_EVENT_ID)) {
    throw validationError("Invalid Last-Event-ID.", [
      { field: "Last-Event-ID", message: `must be a decimal integer 0-${MAX_EVENT_ID}` },
    ]);
  }
  return id;
}

/** What the subscription's document selects, per event. */
type PageEventData = {
  pageEvents: { id: number; type: string; message: SelectedMessage | null; payload: unknown };
};

export const pageEvents: StreamRoute<PageEventData> = {
  kind: "stream",
  operationId: "streamPageEvents",
  method: "GET",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/sse",
  tag: "Comments",
  summary: "Live events of a page as server-sent events.",
  description:
    'Each message is unnamed, with `id:` (send it back as Last-Event-ID to resume) and `data:` {"type", "payload"}. The first message is an `ephemeral` typing snapshot. A comment line is sent as keep-alive at least every 25 s. A Last-Event-ID that is not a decimal integer 0-2147483647 is 400 validation-error. Over the instance\'s open-stream cap a connect is 429 rate-limited; a client that leaves more than the instance\'s bound unread (configuration key live.max_unsent_bytes, default 1 MiB) is disconnected (it resumes with Last-Event-ID).',
  auth: "public",
  rateLimit: "sse",
  params: pagePath,
  document: `subscription PageEvents($siteId: String!, $pageSlug: String!, $after: Int, $until: Int) {
    pageEvents(siteId: $siteId, pageSlug: $pageSlug, after: $after, until: $until) { id type message { ...MessageFields } payload }
  }${MESSAGE_FIELDS}`,
  variables: (input) => pageVariables(input, { after: lastEventId(input.headers["last-event-id"]) }),
  resume: { after: "after", until: "until" },
  frame: (data) => {
    const event = data.pageEvents;
    return {
      id: String(event.id),
      data: { type: event.type, payload: event.message ? toWireMessage(event.message) : (event.payload ?? {}) },
    };
  },
  responses: { 200: { description: "An event stream.", contentType: "text/event-stream", schema: ref("LiveEvent") } },
  problems: { 400: ["validation-error"], 404: ["site-not-found"], 429: ["rate-limited"] },
};

export const liveRoutes: Route[] = [pageEvents];
