// Location routes: MSC3488 locations.
import { eventId, displayName } from "./schemas.ts";
import { proofBody } from "../../rest/schemas.ts";
import { pagePath } from "../../rest/route-helpers.ts";
import { visitorWriteRoute } from "../../rest/visitor-write-route.ts";
import type { Route } from "../../rest/route.ts";
import { postLocation as postLocationWrite } from "./operations/post-location.ts";

export const postLocation = visitorWriteRoute({
  operationId: "postLocation",
  method: "POST",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/location",
  tag: "Locations",
  summary: "Share a location (queued); it is listed as a comment with content.type location.",
  description:
    'geo_uri is an RFC 5870 geo URI in WGS-84 (latitude -90..90, longitude -180..180; optional ;crs=wgs84 and ;u=<meters>). Sent as an m.room.message with msgtype m.location and the MSC3488 m.location block. Signature array: ["LOCATE", site_id, page_slug, geo_uri, reply_to, thread_root, challenge, 1].',
  auth: "site-write",
  operation: postLocationWrite,
  idempotencyKey: true,
  params: pagePath,
  body: proofBody(
    {
      geo_uri: { type: "string", description: "A geo URI (RFC 5870, WGS-84), e.g. geo:48.2010,16.3695;u=35." },
      description: {
        type: ["string", "null"],
        description: "Optional text shown with the location (1-1000 grapheme clusters).",
      },
      display_name: displayName,
      reply_to: eventId,
      thread_root: eventId,
    },
    ["geo_uri"],
  ),
  problems: { 404: ["comment-not-found"], 409: ["comment-redacted"] },
});

export const locationRoutes: Route[] = [postLocation];
