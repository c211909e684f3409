// Retirement routes: a site or a page retired by its owner (claim token) or the operator, the
// state while it is retiring, and the alternate DELETE forms. The request answers at once; the
// Matrix clean-up runs in the background (src/features/retirement/pass.ts).
import type { OperationRoute, RouteInput, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import {
  operatorAuth as operator,
  operatorMirror as mirror,
  pagePath,
  pageVariables,
  sitePath,
} from "../../rest/route-helpers.ts";

const STATE = "{ target_type: targetType target_id: targetId state }";
const SITE = "/api/v1/sites/{site_id}";
const PAGE = `${SITE}/pages/{page_slug}`;
const OPERATOR_SITE = "/api/v1/operator/sites/{site_id}";
const OPERATOR_ROOM = "/api/v1/operator/rooms/{room_id}";

const SITE_RETIREMENT =
  "Writes to the site answer 410 site-retired and its claim token stops working at once; in the background the Space and every room are renamed `[retired] …`, their aliases removed and the service's users leave them, then the site's rows are cleared and its id can be registered again. Sites declared in [sites] cannot be retired (409 config-declared). Repeating the request while the site is retiring answers the same.";
const PAGE_RETIREMENT =
  "Writes to the page answer 410 page-retired at once; in the background its room is renamed `[retired] site_id/page_slug`, its alias removed and the service's users leave it, then the page's comments are cleared and its next comment starts a fresh room.";
const STATE_READ =
  "State of the retirement: retiring until the background pass has cleared the target, then 404; before a request, active.";

const siteVariables = (input: RouteInput) => ({ siteId: input.params.site_id });
const roomVariables = (input: RouteInput) => ({ roomId: input.params.room_id });
const roomPath = {
  room_id: { type: "string", minLength: 1, description: "A page room's Matrix room id, percent-encoded." },
};

const claimWrite = { auth: "claim", postAuthRateLimit: "governanceWrite", tag: "Sites" } as const;
const publicRead = { auth: "public", rateLimit: "publicRead", tag: "Sites" } as const;

const retiring = (status: 200 | 202) => ({ [status]: { description: "Retiring.", schema: ref("RetirementState") } });
const state = { 200: { description: "The state.", schema: ref("RetirementState") } };

const retireSiteDocument = `mutation RetireSite($siteId: String!) { retireSite(siteId: $siteId) ${STATE} }`;
const siteStateDocument = `query SiteRetirement($siteId: String!) { siteRetirement(siteId: $siteId) ${STATE} }`;
const retireRoomDocument = `mutation RetireRoom($roomId: String!) { retireRoom(roomId: $roomId) ${STATE} }`;

export const retireSite: OperationRoute = {
  kind: "operation",
  operationId: "retireSite",
  method: "POST",
  path: `${SITE}/retirement`,
  ...claimWrite,
  summary: "Retire a site.",
  description: SITE_RETIREMENT,
  params: sitePath,
  document: retireSiteDocument,
  variables: siteVariables,
  respond: (data) => ({ status: 202, body: data.retireSite }),
  responses: retiring(202),
  problems: { 409: ["config-declared"] },
};

export const getSiteRetirement: OperationRoute = {
  kind: "operation",
  operationId: "getSiteRetirement",
  method: "GET",
  path: `${SITE}/retirement`,
  ...publicRead,
  summary: "A site's retirement state.",
  description: `${STATE_READ} Public: a retiring site's claim token no longer works.`,
  params: sitePath,
  document: siteStateDocument,
  variables: siteVariables,
  respond: (data) => ({ status: 200, body: data.siteRetirement }),
  responses: state,
  problems: { 404: ["site-not-found"] },
};

export const deleteSite: OperationRoute = {
  ...retireSite,
  operationId: "deleteSite",
  method: "DELETE",
  path: SITE,
  summary: "Retire a site (alternate form of POST .../retirement).",
  respond: (data) => ({ status: 200, body: data.retireSite }),
  responses: retiring(200),
};

export const retirePage: OperationRoute = {
  kind: "operation",
  operationId: "retirePage",
  method: "POST",
  path: `${PAGE}/retirement`,
  ...claimWrite,
  summary: "Retire a page's room.",
  description: `${PAGE_RETIREMENT} A page without an active room (never commented, or already retired) is 404 room-not-found.`,
  params: pagePath,
  document: `mutation RetirePage($siteId: String!, $pageSlug: String!) { retirePage(siteId: $siteId, pageSlug: $pageSlug) ${STATE} }`,
  variables: pageVariables,
  respond: (data) => ({ status: 202, body: data.retirePage }),
  responses: retiring(202),
  problems: { 404: ["room-not-found"] },
};

export const getPageRetirement: OperationRoute = {
  kind: "operation",
  operationId: "getPageRetirement",
  method: "GET",
  path: `${PAGE}/retirement`,
  ...publicRead,
  summary: "A page's retirement state.",
  description: `${STATE_READ} A page without a room is 404 room-not-found.`,
  params: pagePath,
  document: `query PageRetirement($siteId: String!, $pageSlug: String!) { pageRetirement(siteId: $siteId, pageSlug: $pageSlug) ${STATE} }`,
  variables: pageVariables,
  respond: (data) => ({ status: 200, body: data.pageRetirement }),
  responses: state,
  problems: { 404: ["site-not-found", "room-not-found"] },
};

export const deletePage: OperationRoute = {
  ...retirePage,
  operationId: "deletePage",
  method: "DELETE",
  path: PAGE,
  summary: "Retire a page's room (alternate form of POST .../retirement).",
  document: `mutation DeletePage($siteId: String!, $pageSlug: String!) { retirePage(siteId: $siteId, pageSlug: $pageSlug) { site_id: siteId page_slug: pageSlug status: state } }`,
  respond: (data) => ({ status: 200, body: data.retirePage }),
  responses: { 200: { description: "Retiring.", schema: ref("PageRetiring") } },
};

export const operatorRetireSite = mirror(retireSite, "operatorRetireSite", `${OPERATOR_SITE}/retirement`, {
  problems: { 404: ["site-not-found"], 409: ["config-declared"] },
});
export const operatorGetSiteRetirement = mirror(
  getSiteRetirement,
  "operatorGetSiteRetirement",
  `${OPERATOR_SITE}/retirement`,
  {
    description: `${STATE_READ} Answered while the site's row exists.`,
  },
);
export const operatorDeleteSite = mirror(deleteSite, "operatorDeleteSite", OPERATOR_SITE, {
  problems: operatorRetireSite.problems,
});

export const operatorRetireRoom: OperationRoute = {
  kind: "operation",
  operationId: "operatorRetireRoom",
  method: "POST",
  path: `${OPERATOR_ROOM}/retirement`,
  ...operator,
  summary: "Retire a page room (operator).",
  description: `Retires the page whose active room this is; the answer is keyed by the room (target_type room). ${PAGE_RETIREMENT} A room that is not an active page room (unknown, a Space, superseded or already retired) is 404 room-not-found.`,
  params: roomPath,
  document: retireRoomDocument,
  variables: roomVariables,
  respond: (data) => ({ status: 202, body: data.retireRoom }),
  responses: retiring(202),
  problems: { 404: ["room-not-found"] },
};

export const operatorGetRoomRetirement: OperationRoute = {
  ...operatorRetireRoom,
  operationId: "operatorGetRoomRetirement",
  method: "GET",
  summary: "A page room's retirement state (operator).",
  description: `${STATE_READ} Answered while the room is in the registry.`,
  document: `query RoomRetirement($roomId: String!) { roomRetirement(roomId: $roomId) ${STATE} }`,
  respond: (data) => ({ status: 200, body: data.roomRetirement }),
  responses: state,
};

export const operatorDeleteRoom: OperationRoute = {
  ...operatorRetireRoom,
  operationId: "operatorDeleteRoom",
  method: "DELETE",
  path: OPERATOR_ROOM,
  summary: "Retire a page room (operator; alternate form of POST .../retirement).",
  document: `mutation DeleteRoom($roomId: String!) { retireRoom(roomId: $roomId) { room_id: targetId status: state } }`,
  respond: (data) => ({ status: 200, body: data.retireRoom }),
  responses: { 200: { description: "Retiring.", schema: ref("RoomRetiring") } },
};

export const retirementRoutes: Route[] = [
  ...[retireSite, getSiteRetirement, deleteSite, retirePage, getPageRetirement, deletePage],
  ...[
    operatorRetireSite,
    operatorGetSiteRetirement,
    operatorDeleteSite,
    operatorRetireRoom,
    operatorGetRoomRetirement,
    operatorDeleteRoom,
  ],
];
