// THE route table: the single source of truth for the REST surface, one module per tag.
// Routing, request validation, the handlers (GraphQL operations run in-process) and
// openapi/openapi.json are all derived from these entries.
import type { Route } from "../route.ts";
import { challenge, health, openapiDocument } from "./meta.ts";
import { issueSiteSecret, registerSite } from "./sites.ts";
import { confirmVerification, startVerification } from "./verification.ts";
import { deleteComment, deleteCommentByQuery, editComment, editCommentByBody, listComments, postComment } from "./comments.ts";
import { react, unreact } from "./reactions.ts";
import { createPoll, vote } from "./polls.ts";
import { postLocation } from "./locations.ts";
import { uploadMedia } from "./uploads.ts";
import { pageEvents } from "./live.ts";
import { getMedia } from "./media.ts";
import { getPageModerators, getPageRoles, getRoom, getSiteRoles } from "./rooms.ts";
import {
  deletePage,
  deleteSite,
  getPageRetirement,
  getSiteRetirement,
  operatorDeleteRoom,
  operatorDeleteSite,
  operatorGetRoomRetirement,
  operatorGetSiteRetirement,
  operatorRetireRoom,
  operatorRetireSite,
  retirePage,
  retireSite,
} from "./retirement.ts";
import {
  operatorGetConfigSnippet,
  operatorListSites,
  operatorRemoveSecret,
  operatorRevokeOrigin,
  operatorRevokeOriginAlternate,
  operatorRotateClaimToken,
  operatorRotateClaimTokenAlternate,
  operatorRotateSecret,
  operatorRotateSecretAlternate,
} from "./operator-sites.ts";
import { addSticker, listStickers, operatorAddSticker, operatorRemoveSticker, operatorRemoveStickerByQuery, removeSticker, removeStickerByQuery } from "./stickers.ts";
import { deleteAvatar, getVisitorProfile, uploadAvatar } from "./visitor-profiles.ts";
import { governanceRoutes } from "./governance.ts";

export function buildRoutes(document: () => unknown): Route[] {
  return [
    ...[health, challenge, openapiDocument(document)],
    ...[registerSite, issueSiteSecret],
    ...[startVerification, confirmVerification],
    ...[listComments, postComment, editComment, editCommentByBody, deleteComment, deleteCommentByQuery],
    ...[react, unreact],
    ...[createPoll, vote],
    postLocation,
    uploadMedia,
    pageEvents,
    getMedia,
    ...[getRoom, getPageModerators, getPageRoles, getSiteRoles],
    ...[operatorListSites, operatorRevokeOrigin, operatorRevokeOriginAlternate, operatorRotateSecret, operatorRotateSecretAlternate, operatorRemoveSecret],
    ...[operatorRotateClaimToken, operatorRotateClaimTokenAlternate, operatorGetConfigSnippet],
    ...[retireSite, getSiteRetirement, deleteSite, retirePage, getPageRetirement, deletePage],
    ...[operatorRetireSite, operatorGetSiteRetirement, operatorDeleteSite, operatorRetireRoom, operatorGetRoomRetirement, operatorDeleteRoom],
    ...[listStickers, addSticker, removeSticker, removeStickerByQuery, operatorAddSticker, operatorRemoveSticker, operatorRemoveStickerByQuery],
    ...[getVisitorProfile, uploadAvatar, deleteAvatar],
    ...governanceRoutes,
  ];
}
