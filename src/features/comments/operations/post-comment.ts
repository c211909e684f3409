// POST …/comments: a text comment, or a media comment (the visitor's own upload, or a sticker
// of the site's packs), optionally a reply and/or in a thread.
import { signatureArrays } from "../../../contract/signatures.ts";
import { checkCommentText, checkDisplayName, checkEventId, checkFormattedBody } from "../comment-input.ts";
import { notFound } from "../../../core/errors.ts";
import { PROOF_KEY, withRelations, type Content } from "../../../matrix/events.ts";
import type { ProofBlock } from "../../../matrix/events.ts";
import { ALLOWED_MEDIA_TYPES } from "../../media/media-types.ts";
import type { PageInput, VisitorOperation } from "../../../writes/operation.ts";
import { relationRules } from "../../../writes/targets.ts";
import { findUpload } from "../../media/media-upload-store.ts";
import { EventType, HTML_FORMAT, MsgType } from "../../../contract/matrix-vocabulary.ts";

/** media: the body's media object (shape checked by the route's schema): an upload result or {kind: "sticker", url}. */
const fields = {
  content: "String",
  format: "String",
  formattedBody: "String",
  media: "JSON",
  displayName: "String",
  replyTo: "String",
  threadRoot: "String",
} as const;
export type PostCommentInput = PageInput<typeof fields>;

/** An m.text body, with its HTML (org.matrix.custom.html) when it has one. */
export const textBody = (body: string, formattedBody: string | null) =>
  formattedBody === null
    ? { msgtype: MsgType.Text, body }
    : { msgtype: MsgType.Text, body, format: HTML_FORMAT, formatted_body: formattedBody };

export function textMessageContent(
  body: string,
  formattedBody: string | null,
  replyTo: string | null,
  threadRoot: string | null,
  proof: ProofBlock,
): Content {
  return withRelations({ ...textBody(body, formattedBody), [PROOF_KEY]: proof }, replyTo, threadRoot);
}

/** An uploaded file as a media comment sends it (from the upload's record, not the client's claims). */
export interface MediaAttachment {
  msgtype: (typeof MsgType)["Image" | "Video" | "Audio" | "File"];
  url: string;
  mimetype: string;
  size: number;
  filename: string | null;
  width: number | null;
  height: number | null;
  /** A voice message: MSC3245 fields, so clients show a voice player. */
  voice: boolean;
}

/**
 * m.image / m.video / m.audio / m.file. `body` is the comment text (a caption when a filename
 * is given, as Matrix reads it) or else the filename.
 */
export function mediaMessageContent(
  media: MediaAttachment,
  body: string,
  replyTo: string | null,
  threadRoot: string | null,
  proof: ProofBlock,
): Content {
  const info = {
    mimetype: media.mimetype,
    size: media.size,
    ...(media.width !== null && media.height !== null ? { w: media.width, h: media.height } : {}),
  };
  const voice = media.voice ? { "org.matrix.msc3245.voice": {}, "org.matrix.msc1767.audio": {} } : {};
  return withRelations(
    {
      msgtype: media.msgtype,
      body,
      ...(media.filename !== null ? { filename: media.filename } : {}),
      url: media.url,
      info,
      ...voice,
      [PROOF_KEY]: proof,
    },
    replyTo,
    threadRoot,
  );
}

/** An m.sticker event: the pack's image with the pack's description and info. */
export function stickerContent(
  url: string,
  body: string,
  info: Record<string, unknown>,
  replyTo: string | null,
  threadRoot: string | null,
  proof: ProofBlock,
): Content {
  return withRelations({ body, url, info, [PROOF_KEY]: proof }, replyTo, threadRoot);
}

/** What a media comment sends, filled by `load` from the upload's record or the site's packs. */
type Attached =
  | { kind: "upload"; media: MediaAttachment }
  | { kind: "sticker"; body: string; info: Record<string, unknown> };

interface Checked {
  /** The text; with media, the (unsigned) caption or null. */
  content: string | null;
  /** The text's HTML (unsigned), text comments only. */
  formattedBody: string | null;
  media: { sticker: boolean; url: string; voice: boolean } | null;
  attached: Attached | null;
  displayName: string | null;
  replyTo: string | null;
  threadRoot: string | null;
}

/** A property of a JSON object, if the value is one. */
const property = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined;

/** What is signed and repeated in the proof block: the text, or media.url in its place. */
const signed = (c: Checked): string => c.media?.url ?? c.content!;

export const postComment: VisitorOperation<PostCommentInput, Checked> = {
  mutation: "postComment",
  description: "Queues a visitor comment (author proof and proof of work; site write auth on REST).",
  level: "page",
  fields,
  kind: "comment.post",
  answer: "submission",
  check(input, errors) {
    const given = input.media;
    // The REST schema guarantees the shape; GraphQL's JSON scalar does not.
    const url = property(given, "url");
    if (given && typeof url !== "string") errors.push({ field: "media.url", message: "is required" });
    const media =
      given && typeof url === "string"
        ? { sticker: property(given, "kind") === "sticker", url, voice: property(given, "voice") === true }
        : null;
    if (!given || input.content !== null) checkCommentText("content", input.content, errors);
    checkFormattedBody(input.format, input.formattedBody, errors);
    if (given && input.formattedBody !== null)
      errors.push({ field: "formatted_body", message: "is for text comments only (not with media)" });
    checkDisplayName(input.displayName, errors);
    checkEventId("reply_to", input.replyTo, errors);
    checkEventId("thread_root", input.threadRoot, errors);
    return {
      content: input.content,
      formattedBody: input.formattedBody,
      media,
      attached: null,
      displayName: input.displayName,
      replyTo: input.replyTo,
      threadRoot: input.threadRoot,
    };
  },
  signatureArray: (c, s) =>
    signatureArrays.postComment(s.siteId, s.pageSlug, signed(c), c.replyTo, c.threadRoot, s.challenge),
  proofSubject: signed,
  async load(c, scope, { db, stickers }) {
    if (!c.media) return c;
    if (c.media.sticker) {
      const found = await stickers.findImage(scope.siteId, c.media.url);
      if (!found) throw notFound("sticker-not-found", `${c.media.url} is not an image of this site's sticker packs.`);
      return { ...c, attached: { kind: "sticker", body: found.body ?? found.shortcode, info: found.info ?? {} } };
    }
    // Only the visitor's own uploads for this site: no posting of arbitrary mxc:// URLs.
    const upload = await findUpload(db, c.media.url);
    if (!upload || upload.siteId !== scope.siteId || upload.authorPublicKey !== scope.author) {
      throw notFound("media-not-found", `${c.media.url} is not an upload of this visitor for this site.`);
    }
    const kind = ALLOWED_MEDIA_TYPES[upload.mimetype] ?? "file";
    const media: MediaAttachment = {
      msgtype: `m.${kind}`,
      url: upload.url,
      mimetype: upload.mimetype,
      size: upload.size,
      filename: upload.filename,
      width: upload.width,
      height: upload.height,
      voice: kind === "audio" && (upload.voice || c.media.voice),
    };
    return { ...c, attached: { kind: "upload", media } };
  },
  targets: (c) => relationRules(c.replyTo, c.threadRoot),
  effect: (c, s) => {
    const attached = c.attached;
    if (attached?.kind === "sticker") {
      return {
        action: "send",
        roomId: null,
        type: EventType.Sticker,
        content: stickerContent(c.media!.url, attached.body, attached.info, c.replyTo, c.threadRoot, s.proof),
      };
    }
    if (attached?.kind === "upload") {
      const body = c.content ?? attached.media.filename ?? attached.media.msgtype.slice(2);
      return {
        action: "send",
        roomId: null,
        type: EventType.Message,
        content: mediaMessageContent(attached.media, body, c.replyTo, c.threadRoot, s.proof),
      };
    }
    return {
      action: "send",
      roomId: null,
      type: EventType.Message,
      content: textMessageContent(c.content!, c.formattedBody, c.replyTo, c.threadRoot, s.proof),
    };
  },
  displayName: (c) => c.displayName,
};
