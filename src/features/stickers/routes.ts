// Sticker routes: a site's packs (public), and one-image edits by the site's owner (claim token)
// or the operator, with the earlier revision's `?shortcode=` delete form.
import type { GraphQLData, OperationRoute, RouteInput, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { pathParams, requestBodies } from "./schemas.ts";
import { alternate, homeserverProblems, operatorMirror as mirror, sitePath } from "../../rest/route-helpers.ts";

const PACK = `{
  pack_id: packId display_name: displayName avatar_url: avatarUrl avatar_proxy_url: avatarProxyUrl
  images { shortcode url proxy_url: proxyUrl body info }
}`;
const STICKERS = "/api/v1/sites/{site_id}/packs/{pack_id}/stickers";
const OPERATOR_STICKERS = "/api/v1/operator/sites/{site_id}/packs/{pack_id}/stickers";
const packPath = { ...sitePath, pack_id: pathParams.pack_id };
const updated = { 200: { description: "The updated pack.", schema: ref("StickerPack") } };
const EDIT =
  "The pack is the m.room.image_pack state event on the site's Space (state key pack_id), written whole by the service's bot from the homeserver's current state, so edits made in a Matrix client are kept; the answer and later reads show the change at once.";

const claimWrite = { kind: "operation", auth: "claim", postAuthRateLimit: "governanceWrite", tag: "Stickers" } as const;

const removeDocument = `mutation RemoveSticker($siteId: String!, $packId: String!, $shortcode: String!) {
  removeSticker(siteId: $siteId, packId: $packId, shortcode: $shortcode) ${PACK}
}`;
const removeVariables = (shortcode: (input: RouteInput) => string | undefined) => (input: RouteInput) => ({
  siteId: input.params.site_id,
  packId: input.params.pack_id,
  shortcode: shortcode(input),
});

export const listStickers: OperationRoute = {
  kind: "operation",
  operationId: "listStickers",
  method: "GET",
  path: "/api/v1/sites/{site_id}/stickers",
  tag: "Stickers",
  auth: "public",
  rateLimit: "publicRead",
  summary: "A site's sticker packs (MSC2545 image packs on its Space).",
  description:
    "Read from the projected state of the site's Space, so packs edited in a Matrix client are listed once the homeserver has pushed the change. Images whose usage excludes stickers are not listed. A site without packs answers an empty list.",
  params: sitePath,
  document: `query StickerPacks($siteId: String!) { stickerPacks(siteId: $siteId) { packs ${PACK} } }`,
  variables: (input) => ({ siteId: input.params.site_id }),
  respond: (data) => ({ status: 200, body: data.stickerPacks }),
  responses: { 200: { description: "The packs.", schema: ref("StickerPacks") } },
  problems: { 404: ["site-not-found"] },
};

export const addSticker: OperationRoute<GraphQLData, typeof requestBodies.addSticker> = {
  ...claimWrite,
  operationId: "addSticker",
  method: "POST",
  path: STICKERS,
  summary: "Add or replace one sticker image, creating the pack when needed.",
  description: `${EDIT} A new pack is created with display_name = pack_id and usage ["sticker"] (and the site's Space with it if the site has none yet). The url must be an mxc:// URL of the service's homeserver (400 validation-error otherwise, and when the pack would outgrow one Matrix event).`,
  params: packPath,
  body: { schema: requestBodies.addSticker, optional: false },
  document: `mutation AddSticker($siteId: String!, $packId: String!, $shortcode: String!, $url: String!, $body: String, $info: JSON) {
    addSticker(siteId: $siteId, packId: $packId, shortcode: $shortcode, url: $url, body: $body, info: $info) ${PACK}
  }`,
  variables: (input) => ({ siteId: input.params.site_id, packId: input.params.pack_id, ...input.body }),
  respond: (data) => ({ status: 200, body: data.addSticker }),
  responses: updated,
  problems: homeserverProblems(),
};

export const removeSticker: OperationRoute = {
  ...claimWrite,
  operationId: "removeSticker",
  method: "DELETE",
  path: `${STICKERS}/{shortcode}`,
  summary: "Remove one sticker image.",
  description: `${EDIT} Removing an image the pack does not have (or from a pack that does not exist) changes nothing and answers the pack as it is.`,
  params: { ...packPath, shortcode: pathParams.shortcode },
  document: removeDocument,
  variables: removeVariables((input) => input.params.shortcode),
  respond: (data) => ({ status: 200, body: data.removeSticker }),
  responses: updated,
  problems: homeserverProblems(),
};

export const removeStickerByQuery = alternate(removeSticker, STICKERS, {
  params: packPath,
  query: { properties: { shortcode: pathParams.shortcode }, required: ["shortcode"] },
  variables: removeVariables((input) => input.query.shortcode),
});

/** The operator's mirrors check the site themselves: 404 unregistered, 410 while it is retiring. */
const OPERATOR_PROBLEMS = { 404: ["site-not-found"], 410: ["site-retired"], ...homeserverProblems() };

export const operatorAddSticker = mirror(addSticker, "operatorAddSticker", OPERATOR_STICKERS, {
  problems: OPERATOR_PROBLEMS,
});
export const operatorRemoveSticker = mirror(
  removeSticker,
  "operatorRemoveSticker",
  `${OPERATOR_STICKERS}/{shortcode}`,
  { problems: OPERATOR_PROBLEMS },
);
export const operatorRemoveStickerByQuery = mirror(
  removeStickerByQuery,
  "operatorRemoveStickerAlternate",
  OPERATOR_STICKERS,
  { problems: OPERATOR_PROBLEMS },
);

export const stickerRoutes: Route[] = [
  listStickers,
  addSticker,
  removeSticker,
  removeStickerByQuery,
  operatorAddSticker,
  operatorRemoveSticker,
  operatorRemoveStickerByQuery,
];
