// Room lifecycle routes: upgrades (the owner's claim route and the operator's), upgrade intents
// and their recovery, quarantined rooms and their reinstatement; with the earlier revision's
// alternate paths.
import type { OperationRoute, RouteInput, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { alternate, homeserverProblems, operatorAuth as operator, pagePath } from "../../rest/route-helpers.ts";
import { requestBodies } from "./schemas.ts";

const OPERATOR = "/api/v1/operator";
const ROOM = `${OPERATOR}/rooms/{room_id}`;
const INTENTS = `${OPERATOR}/room-upgrade-intents`;
const QUARANTINED = `${OPERATOR}/quarantined-rooms`;
const QUARANTINED_ALTERNATE = `${OPERATOR}/rooms/quarantined`;

const UPGRADE =
  "{ room_id: roomId site_id: siteId page_slug: pageSlug replacement_room_id: replacementRoomId room_version: roomVersion state }";
const INTENT = `{ room_id: roomId site_id: siteId page_slug: pageSlug target_version: targetVersion replacement_room_id: replacementRoomId
  state error created_at: createdAt updated_at: updatedAt }`;
const QUARANTINE = `{ room_id: roomId site_id: siteId page_slug: pageSlug reason first_quarantined_at: firstQuarantinedAt
  consecutive_failures: consecutiveFailures next_retry_at: nextRetryAt }`;
const META = "meta { total page per_page: perPage total_pages: totalPages }";

const roomPath = {
  room_id: { type: "string", minLength: 1, description: "A page room's Matrix room id, percent-encoded." },
} as const;

const UPGRADE_DESCRIPTION =
  "Asks the homeserver to upgrade the room (as the service's bot: the tombstone is real) and answers once the replacement has converged: it is the page's active room, the page alias points at it, it is linked into the site's Space and carries the page's name, the site's roles and the page's moderators hold their levels there, and the old room is superseded. An existing tombstone is reused, so repeating the request answers the same replacement. While the homeserver cannot be reached the request is 503 homeserver-unavailable; an upgrade cut short that way resumes (its intent) once it is back. A permanent refusal is 502 homeserver-refused and the intent failed. new_version must be a room version the homeserver knows and newer than the room's (400 invalid-room-version); before room v12 the bot needs tombstone power (409 room-not-upgradable).";
const upgraded = { 200: { description: "The converged upgrade.", schema: ref("RoomUpgrade") } };

export const upgradePage: OperationRoute = {
  kind: "operation",
  operationId: "upgradePage",
  method: "POST",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/upgrades",
  auth: "claim",
  postAuthRateLimit: "governanceWrite",
  tag: "Rooms",
  summary: "Upgrade a page's room to a newer room version.",
  description: `${UPGRADE_DESCRIPTION} A page without an active room is 404 room-not-found.`,
  params: pagePath,
  body: { schema: requestBodies.upgradeRoom, optional: false },
  document: `mutation UpgradePageRoom($siteId: String!, $pageSlug: String!, $newVersion: String!) { upgradePageRoom(siteId: $siteId, pageSlug: $pageSlug, newVersion: $newVersion) ${UPGRADE} }`,
  variables: (input) => ({
    siteId: input.params.site_id,
    pageSlug: input.params.page_slug,
    newVersion: input.body.new_version,
  }),
  respond: (data) => ({ status: 200, body: data.upgradePageRoom }),
  responses: upgraded,
  problems: {
    400: ["validation-error", "invalid-room-version"],
    404: ["room-not-found"],
    409: ["room-not-upgradable"],
    ...homeserverProblems(),
  },
};

export const operatorUpgradeRoom: OperationRoute = {
  kind: "operation",
  operationId: "operatorUpgradeRoom",
  method: "POST",
  path: `${ROOM}/upgrades`,
  ...operator,
  summary: "Upgrade a page room to a newer room version (operator).",
  description: `${UPGRADE_DESCRIPTION} A Space is 409 room-not-upgradable, an unknown room 404 room-not-found, a room that is not active (superseded, quarantined, retiring) 409 room-not-active.`,
  params: roomPath,
  body: { schema: requestBodies.upgradeRoom, optional: false },
  document: `mutation UpgradeRoom($roomId: String!, $newVersion: String!) { upgradeRoom(roomId: $roomId, newVersion: $newVersion) ${UPGRADE} }`,
  variables: (input) => ({ roomId: input.params.room_id, newVersion: input.body.new_version }),
  respond: (data) => ({ status: 200, body: data.upgradeRoom }),
  responses: upgraded,
  problems: {
    400: ["validation-error", "invalid-room-version"],
    404: ["room-not-found"],
    409: ["room-not-active", "room-not-upgradable"],
    ...homeserverProblems(),
  },
};

export const operatorListUpgradeIntents: OperationRoute = {
  kind: "operation",
  operationId: "operatorListUpgradeIntents",
  method: "QUERY",
  path: INTENTS,
  ...operator,
  summary: "Room upgrade intents, oldest first.",
  description:
    "Every upgrade (requested by a route, or a tombstone observed in a page room) is an intent: requested → observed (the tombstone names the replacement) → adopted; failed when the service's upgrade could not complete, manual when a hand upgrade could not be adopted. status narrows the list.",
  body: { schema: requestBodies.listUpgradeIntents, optional: true },
  document: `query RoomUpgradeIntents($page: Int, $perPage: Int, $status: String) { roomUpgradeIntents(page: $page, perPage: $perPage, status: $status) { data ${INTENT} ${META} } }`,
  variables: (input: RouteInput) => ({
    page: input.body.page,
    perPage: input.body.per_page,
    status: input.body.status ?? null,
  }),
  respond: (data) => ({ status: 200, body: data.roomUpgradeIntents }),
  responses: { 200: { description: "One page of intents.", schema: ref("RoomUpgradeIntentPage") } },
  problems: { 400: ["validation-error"] },
};

export const operatorRecoverUpgrade: OperationRoute = {
  kind: "operation",
  operationId: "operatorRecoverUpgrade",
  method: "POST",
  path: `${INTENTS}/{room_id}/recoveries`,
  ...operator,
  summary: "Adopt the replacement of a failed or manual upgrade intent.",
  description:
    "Only a failed or manual intent (409 intent-not-recoverable). The old room's tombstone must name exactly replacement_room, and its create event must carry new_version and name the old room as predecessor (409 replacement-mismatch); then the replacement is adopted like any upgrade. Refused, nothing changes and the page keeps its room.",
  params: roomPath,
  body: { schema: requestBodies.recoverUpgrade, optional: false },
  document: `mutation RecoverRoomUpgrade($roomId: String!, $newVersion: String!, $replacementRoom: String!) {
    recoverRoomUpgrade(roomId: $roomId, newVersion: $newVersion, replacementRoom: $replacementRoom) ${INTENT}
  }`,
  variables: (input) => ({
    roomId: input.params.room_id,
    newVersion: input.body.new_version,
    replacementRoom: input.body.replacement_room,
  }),
  respond: (data) => ({ status: 200, body: data.recoverRoomUpgrade }),
  responses: { 200: { description: "The adopted intent.", schema: ref("RoomUpgradeIntent") } },
  problems: {
    400: ["validation-error"],
    404: ["intent-not-found"],
    409: ["intent-not-recoverable", "replacement-mismatch"],
  },
};

export const operatorListQuarantinedRooms: OperationRoute = {
  kind: "operation",
  operationId: "operatorListQuarantinedRooms",
  method: "QUERY",
  path: QUARANTINED,
  ...operator,
  summary: "Quarantined page rooms, oldest first.",
  description:
    "Rooms the service found under a page alias but cannot manage (its bot is not in the room and cannot join, did not create it, or lacks power); the page is served from a fresh room. Adoption is retried 1 h, 6 h and 24 h after the failures; next_retry_at null means manual attention (reinstate). site_id narrows the list.",
  body: { schema: requestBodies.listQuarantinedRooms, optional: true },
  document: `query QuarantinedRooms($page: Int, $perPage: Int, $siteId: String) { quarantinedRooms(page: $page, perPage: $perPage, siteId: $siteId) { data ${QUARANTINE} ${META} } }`,
  variables: (input: RouteInput) => ({
    page: input.body.page,
    perPage: input.body.per_page,
    siteId: input.body.site_id ?? null,
  }),
  respond: (data) => ({ status: 200, body: data.quarantinedRooms }),
  responses: { 200: { description: "One page of quarantined rooms.", schema: ref("QuarantinedRoomPage") } },
  problems: { 400: ["validation-error"] },
};

export const operatorReinstateRoom: OperationRoute = {
  kind: "operation",
  operationId: "operatorReinstateRoom",
  method: "DELETE",
  path: `${QUARANTINED}/{room_id}`,
  ...operator,
  summary: "Reinstate a quarantined room as its page's room.",
  description:
    "The room becomes the page's active room (any other active room of the page is superseded), the page alias and the Space link move to it where the homeserver lets the bot, and its quarantine ends. Idempotent: an already active room also answers 204. An unknown room is 404 room-not-found; a superseded or retiring room 409 room-not-quarantined.",
  params: roomPath,
  document: "mutation ReinstateRoom($roomId: String!) { reinstateRoom(roomId: $roomId) }",
  variables: (input) => ({ roomId: input.params.room_id }),
  respond: () => ({ status: 204 }),
  responses: { 204: { description: "The room is the page's active room." } },
  problems: { 404: ["room-not-found"], 409: ["room-not-quarantined"] },
};

export const upgradePageAlternate = alternate(upgradePage, "/api/v1/sites/{site_id}/pages/{page_slug}/upgrade");
export const operatorUpgradeRoomAlternate = alternate(operatorUpgradeRoom, `${ROOM}/upgrade`);
export const operatorListQuarantinedRoomsAlternate = alternate(operatorListQuarantinedRooms, QUARANTINED_ALTERNATE);
export const operatorReinstateRoomAlternate = alternate(operatorReinstateRoom, `${QUARANTINED_ALTERNATE}/{room_id}`);

export const roomLifecycleRoutes: Route[] = [
  ...[
    upgradePage,
    upgradePageAlternate,
    operatorUpgradeRoom,
    operatorUpgradeRoomAlternate,
    operatorListUpgradeIntents,
    operatorRecoverUpgrade,
  ],
  ...[
    operatorListQuarantinedRooms,
    operatorListQuarantinedRoomsAlternate,
    operatorReinstateRoom,
    operatorReinstateRoomAlternate,
  ],
];
