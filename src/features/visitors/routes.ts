// Visitor profile routes: a visitor's profile on a site (public), and the visitor's avatar,
// set from raw image bytes or deleted with an author proof.
import type { OperationRoute, Route } from "../../rest/route.ts";
import { authorProof, ref } from "../../rest/schemas.ts";
import { maxBytesFor } from "../media/media-types.ts";
import { avatarType, uploadAvatar as uploadAvatarWrite } from "./operations/upload-avatar.ts";
import { deleteAvatar as deleteAvatarWrite } from "./operations/delete-avatar.ts";
import { homeserverProblems, sitePath } from "../../rest/route-helpers.ts";
import { uploadParams } from "../media/upload-routes.ts";
import { visitorWriteRoute } from "../../rest/visitor-write-route.ts";
import { UPLOAD_SLOTS } from "../../config/limits.ts";

const AVATAR = "/api/v1/sites/{site_id}/visitors/avatar";
const avatarResult = (description: string) => ({
  description,
  schema: ref("VisitorAvatar"),
  selection: "avatar_url: avatarUrl",
});
const PROPAGATION =
  "The avatar is the virtual user's Matrix profile avatar on this site only (another site derives another user), and it is carried into the m.room.member event of every room the user has joined (MSC4466 propagate_to: all; rooms the homeserver did not update get the member event from the service), so the author.avatar_url of the visitor's comments, old ones included, shows it.";

export const getVisitorProfile: OperationRoute = {
  kind: "operation",
  operationId: "getVisitorProfile",
  method: "GET",
  path: "/api/v1/sites/{site_id}/visitors/profile",
  tag: "Visitors",
  auth: "public",
  rateLimit: "profileRead",
  summary: "A visitor's current display name and avatar on a site.",
  description:
    "The profile of the virtual user that site_id and the key derive: the same key on another site is another visitor (site-scoped). A visitor the site does not know answers null fields. 400 validation-error for a malformed key.",
  params: sitePath,
  query: { properties: { author_public_key: authorProof.author_public_key }, required: ["author_public_key"] },
  document: `query VisitorProfile($siteId: String!, $authorPublicKey: String!) {
    visitorProfile(siteId: $siteId, authorPublicKey: $authorPublicKey) { display_name: displayName avatar_url: avatarUrl }
  }`,
  variables: (input) => ({ siteId: input.params.site_id, authorPublicKey: input.query.author_public_key }),
  respond: (data) => ({ status: 200, body: data.visitorProfile }),
  responses: { 200: { description: "The profile.", schema: ref("VisitorProfile") } },
  problems: { 404: ["site-not-found"] },
};

export const uploadAvatar = visitorWriteRoute({
  operationId: "uploadAvatar",
  method: "PUT",
  path: AVATAR,
  tag: "Visitors",
  summary: "Set the visitor's avatar on a site from an image (raw bytes).",
  description: [
    'Uploads the body to the media repository as the visitor\'s virtual user and makes it the avatar. Signature array: ["UPLOAD_AVATAR", site_id, mime, sha256_hex(body), challenge] with mime exactly as sent.',
    PROPAGATION,
    "mime must be an accepted image type (image/png, image/jpeg, image/gif, image/webp, image/avif, image/heic, image/heif, or an alias): anything else is 400 validation-error (field mime) before the body is read; bytes that are not what mime says are 400 media-type-mismatch. The body is capped by media.max_image_bytes (413 payload-too-large).",
    `The Idempotency-Key fingerprint covers method, path, body hash, mime and filename: a retry answers the first avatar (Idempotent-Replayed: true) without uploading again, and sets it on the profile again (it may have been replaced or deleted since). Rate limited with comment writes (rate_limit.comment_write). Before the body is read, the site, the proof's formats and its challenge (issued, live, unspent, solved) are checked, the challenge only when the Idempotency-Key has not answered a request yet (a replay may repeat its spent challenge); at most ${UPLOAD_SLOTS.perClient} uploads (media and avatars) per client and ${UPLOAD_SLOTS.perInstance} per instance are read at once: one more is 429 rate-limited with Retry-After: ${UPLOAD_SLOTS.retryAfterSeconds}.`,
  ].join("\n\n"),
  auth: "author-proof",
  operation: uploadAvatarWrite,
  result: avatarResult("The avatar (or the replay of an earlier identical request)."),
  idempotencyKey: true,
  params: sitePath,
  query: {
    properties: { ...uploadParams, ...authorProof },
    required: ["mime", "author_public_key", "author_signature", "challenge_response"],
  },
  body: {
    raw: {
      description: "The image's bytes (any Content-Type header is accepted; mime says what they are).",
      maxBytes: (query, config) => maxBytesFor(avatarType(query.mime!).kind, config.media),
      fingerprintQuery: ["mime", "filename"],
    },
  },
  problems: { 400: ["validation-error", "media-type-mismatch"], ...homeserverProblems() },
});

export const deleteAvatar = visitorWriteRoute({
  operationId: "deleteAvatar",
  method: "DELETE",
  path: AVATAR,
  tag: "Visitors",
  summary: "Remove the visitor's avatar on a site.",
  description: `Signature array: ["DELETE_AVATAR", site_id, challenge]; no Idempotency-Key, no body. Removes the avatar from the virtual user's profile and from its rooms' member events; answers {"avatar_url": null}, also when there was none (a no-op). Rate limited with comment writes (rate_limit.comment_write).`,
  auth: "author-proof",
  operation: deleteAvatarWrite,
  result: avatarResult("Removed (or there was none)."),
  idempotencyKey: false,
  params: sitePath,
  query: { properties: { ...authorProof }, required: ["author_public_key", "author_signature", "challenge_response"] },
  body: null,
  problems: homeserverProblems(),
});

export const visitorRoutes: Route[] = [getVisitorProfile, uploadAvatar, deleteAvatar];
