// Room routes: a page room's info and the role rosters of page rooms and sites (public reads).
import type { OperationRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { pagePath, pageVariables, sitePath } from "../../rest/route-helpers.ts";

const ROLE_MEMBER = "{ user_id: userId level }";
const PAGE_PROBLEMS = { 400: ["validation-error"], 404: ["site-not-found", "room-not-found"], 429: ["rate-limited"] };

export const getRoom: OperationRoute = {
  kind: "operation",
  operationId: "getRoom",
  method: "GET",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/room",
  tag: "Rooms",
  summary: "A page room's name, topic, avatar, member count and recent system messages.",
  description: "404 room-not-found while the page has no active room (it is created with the page's first comment).",
  auth: "public",
  rateLimit: "publicRead",
  params: pagePath,
  document: `query PageRoom($siteId: String!, $pageSlug: String!) {
    pageRoom(siteId: $siteId, pageSlug: $pageSlug) {
      room_id: roomId name topic avatar_url: avatarUrl avatar_thumbnail_url: avatarThumbnailUrl member_count: memberCount
      system_messages: systemMessages {
        event_id: eventId event_type: eventType state_key: stateKey sender origin_server_ts: originServerTs content_json: content
      }
    }
  }`,
  variables: pageVariables,
  cache: { scope: "page" },
  respond: (data) => ({ status: 200, body: data.pageRoom }),
  responses: { 200: { description: "The room info.", schema: ref("RoomInfo") } },
  problems: PAGE_PROBLEMS,
};

export const getPageModerators: OperationRoute = {
  kind: "operation",
  operationId: "getPageModerators",
  method: "GET",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/moderators",
  tag: "Rooms",
  summary: "The page room's moderators (power level 50-74).",
  auth: "public",
  rateLimit: "publicRead",
  params: pagePath,
  document: `query PageModerators($siteId: String!, $pageSlug: String!) {
    pageRoles(siteId: $siteId, pageSlug: $pageSlug) { room_id: roomId moderators ${ROLE_MEMBER} }
  }`,
  variables: pageVariables,
  cache: { scope: "page" },
  respond: (data) => ({ status: 200, body: data.pageRoles }),
  responses: { 200: { description: "The moderators.", schema: ref("PageModerators") } },
  problems: PAGE_PROBLEMS,
};

export const getPageRoles: OperationRoute = {
  kind: "operation",
  operationId: "getPageRoles",
  method: "GET",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/roles",
  tag: "Rooms",
  summary: "Admins, managers and moderators of the page room, from its power levels.",
  description:
    "Levels as Matrix has them, including ones set in a Matrix client. The service's own users are never listed.",
  auth: "public",
  rateLimit: "publicRead",
  params: pagePath,
  document: `query PageRoles($siteId: String!, $pageSlug: String!) {
    pageRoles(siteId: $siteId, pageSlug: $pageSlug) {
      site_id: siteId page_slug: pageSlug room_id: roomId admins ${ROLE_MEMBER} managers ${ROLE_MEMBER} moderators ${ROLE_MEMBER}
    }
  }`,
  variables: pageVariables,
  cache: { scope: "page" },
  respond: (data) => ({ status: 200, body: data.pageRoles }),
  responses: { 200: { description: "The page roles.", schema: ref("PageRoles") } },
  problems: PAGE_PROBLEMS,
};

export const getSiteRoles: OperationRoute = {
  kind: "operation",
  operationId: "getSiteRoles",
  method: "GET",
  path: "/api/v1/sites/{site_id}/roles",
  tag: "Rooms",
  summary: "Site admins and managers, from the power levels of the site's Space.",
  description: "A site whose Space does not exist yet (no comment so far) has empty rosters.",
  auth: "public",
  rateLimit: "publicRead",
  params: sitePath,
  document: `query SiteRoles($siteId: String!) { siteRoles(siteId: $siteId) { admins ${ROLE_MEMBER} managers ${ROLE_MEMBER} } }`,
  variables: (input) => ({ siteId: input.params.site_id }),
  cache: { scope: "site" },
  respond: (data) => ({ status: 200, body: data.siteRoles }),
  responses: { 200: { description: "The site roles.", schema: ref("SiteRoles") } },
  problems: { 400: ["validation-error"], 404: ["site-not-found"], 429: ["rate-limited"] },
};

export const roomRoutes: Route[] = [getRoom, getPageModerators, getPageRoles, getSiteRoles];
