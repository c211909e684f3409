// Visitor media uploads: raw bytes in, the mxc:// URL out, for a media comment to post.
import { ALLOWED_MEDIA_TYPES, declaredType, maxBytesFor } from "./media-types.ts";
import { authorProof, ref } from "../../rest/schemas.ts";
import { selectionOf } from "../../rest/wire.ts";
import { components } from "./schemas.ts";
import { homeserverProblems, pagePath } from "../../rest/route-helpers.ts";
import { visitorWriteRoute } from "../../rest/visitor-write-route.ts";
import type { Route } from "../../rest/route.ts";
import { uploadMedia as uploadMediaWrite } from "./operations/upload-media.ts";
import { UPLOAD_SLOTS } from "../../config/limits.ts";

const ACCEPTED = Object.keys(ALLOWED_MEDIA_TYPES).join(", ");

/** The query parameters naming an upload's bytes (uploads and avatars). */
export const uploadParams = {
  mime: {
    type: "string",
    minLength: 1,
    maxLength: 255,
    examples: ["image/png"],
    description: `The body's MIME type: one of ${ACCEPTED} (or an alias).`,
  },
  filename: {
    type: "string",
    minLength: 1,
    maxLength: 255,
    pattern: "^[^\\x00-\\x1f\\x7f/\\\\]+$",
    description: "The file's name (no path, no control characters); the comment's fallback text.",
  },
};

export const uploadMedia = visitorWriteRoute({
  operationId: "uploadMedia",
  method: "POST",
  path: "/api/v1/sites/{site_id}/pages/{page_slug}/media",
  tag: "Visitors",
  summary: "Upload a file (raw bytes) to post in a media comment.",
  description: [
    "Uploads the body to the homeserver's media repository as the visitor's virtual user and answers its mxc:// URL, which a comment post then sends as `media` (only this visitor's uploads for this site can be posted). Signature array: [\"UPLOAD\", site_id, page_slug, mime, filename, sha256_hex(body), challenge] with mime and filename exactly as sent (filename null when absent).",
    `Accepted types (aliases such as image/jpg, audio/x-m4a, audio/x-wav are accepted as their canonical type; parameters like \`;codecs=\` are ignored): ${ACCEPTED}. Any other mime: 400 validation-error (field mime), before the body is read. The bytes must be what mime says (magic numbers): otherwise 400 media-type-mismatch; HTML, SVG, XML and scripts are never accepted. An image's width and height are read and sent with the comment.`,
    "Size caps per kind (configuration media.max_image_bytes, max_video_bytes, max_audio_bytes, max_file_bytes; defaults 10 MiB, 50 MiB, 20 MiB, 20 MiB): a larger body is 413 payload-too-large. voice=true declares an audio upload a voice message (sent with the MSC3245 voice fields); on another kind it is 400 validation-error.",
    `The Idempotency-Key fingerprint covers method, path, body hash, mime, filename and voice (not the proof parameters, which a retry signs afresh): a retry answers the first upload's result (Idempotent-Replayed: true) without uploading again. Rate limited by its own budget (rate_limit.media_upload, default 60 per client per hour), spent before the body is read. Before the body is read, the site, the proof's formats and its challenge (issued, live, unspent, solved) are checked, the challenge only when the Idempotency-Key has not answered a request yet (a replay may repeat its spent challenge); at most ${UPLOAD_SLOTS.perClient} uploads (media and avatars) per client and ${UPLOAD_SLOTS.perInstance} per instance are read at once: one more is 429 rate-limited with Retry-After: ${UPLOAD_SLOTS.retryAfterSeconds}.`,
  ].join("\n\n"),
  auth: "author-proof",
  rateLimit: "mediaUpload",
  operation: uploadMediaWrite,
  result: {
    description: "Uploaded (or the replay of an earlier identical upload).",
    schema: ref("MediaUpload"),
    selection: selectionOf(components.MediaUpload, components),
  },
  idempotencyKey: true,
  params: pagePath,
  query: {
    properties: {
      ...uploadParams,
      voice: { enum: ["true", "false"], description: "true: an audio upload is a voice message." },
      ...authorProof,
    },
    required: ["mime", "author_public_key", "author_signature", "challenge_response"],
  },
  body: {
    raw: {
      description: "The file's bytes (any Content-Type header is accepted; mime says what they are).",
      maxBytes: (query, config) => maxBytesFor(declaredType(query.mime!).kind, config.media),
      fingerprintQuery: ["mime", "filename", "voice"],
    },
  },
  problems: { 400: ["validation-error", "media-type-mismatch"], ...homeserverProblems() },
});

export const uploadRoutes: Route[] = [uploadMedia];
