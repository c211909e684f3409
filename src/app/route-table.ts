// THE route table: the single source of truth for the REST surface, one module per tag.
// Routing, request validation, the handlers (GraphQL operations run in-process) and
// openapi/openapi.json are all derived from these entries.
import type { Route } from "../rest/route.ts";
import { challenge, health, openapiDocument } from "../features/meta/routes.ts";
import { issueSiteSecret, registerSite } from "../features/sites/routes.ts";
import { confirmVerification, startVerification } from "../features/verification/routes.ts";
import { deleteComment, deleteCommentByQuery, editComment, editCommentByBody, listComments, postComment } from "../features/comments/routes.ts";
import { react, unreact } from "../features/comments/reaction-routes.ts";
import { createPoll, vote } from "../features/comments/poll-routes.ts";
import { postLocation } from "../features/comments/location-routes.ts";
import { uploadMedia } from "../features/media/upload-routes.ts";
import { pageEvents } from "../features/live/routes.ts";
import { getMedia } from "../features/media/routes.ts";
import { getPageModerators, getPageRoles, getRoom, getSiteRoles } from "../features/rooms/routes.ts";
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
} from "../features/retirement/routes.ts";
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
} from "../features/operator/routes.ts";
import { addSticker, listStickers, operatorAddSticker, operatorRemoveSticker, operatorRemoveStickerByQuery, removeSticker, removeStickerByQuery } from "../features/stickers/routes.ts";
import { deleteAvatar, getVisitorProfile, uploadAvatar } from "../features/visitors/routes.ts";
import { governanceRoutes } from "../features/governance/routes.ts";

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
