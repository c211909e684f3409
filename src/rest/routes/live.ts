// The live event stream of a page (SSE).
import type { StreamRoute } from "../route.ts";
import { ref } from "../schemas.ts";
import { toWireMessage } from "../wire.ts";
import { MESSAGE_FIELDS, pagePath, pageVariables } from "./shared.ts";

export const pageEvents: StreamRoute = {
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
