// POST …/media: a visitor's upload to the homeserver's media repository, as its virtual user.
// Immediate: the answer is the mxc:// URL, which a media comment then posts.
import { signatureArrays } from "../../../contract/signatures.ts";
import { createHash } from "node:crypto";
import { DomainError, validationError } from "../../../core/errors.ts";
import { hasErrcode } from "../../../matrix/errors.ts";
import type { Homeserver } from "../../../matrix/homeserver.ts";
import { declaredType, type DeclaredType } from "../media-types.ts";
import { inspectUpload } from "../sniff.ts";
import type { UploadedMedia } from "../schemas.ts";
import type { ImmediateOperation, PageInput, RawBodyInput } from "../../../writes/operation.ts";
import { builder } from "../../../graphql/builder.ts";
import { recordUpload } from "../media-upload-store.ts";

/** mime: the declared type, signed as sent; voice: "true" declares an audio upload a voice message. */
const fields = { mime: "String!", filename: "String", voice: "String" } as const;
export type UploadMediaInput = PageInput<typeof fields> & RawBodyInput;

/** The mutation's type (fields: src/features/media/graphql.ts). */
export const MediaUploadType = builder.objectRef<UploadedMedia & { replayed: boolean }>("MediaUpload");

interface Checked {
  mime: string;
  declared: DeclaredType;
  filename: string | null;
  voice: boolean;
  body: Buffer;
  sha256: string;
  width: number | null;
  height: number | null;
}

/** Uploads a visitor's bytes as its virtual user; the mxc:// URL. */
export function uploadAs(
  homeserver: Homeserver,
  userId: string,
  body: Buffer,
  mime: string,
  filename: string | null,
): Promise<string> {
  return homeserver.uploadMedia(userId, body, mime, filename).catch((err: unknown) => {
    // The homeserver's own cap is lower than this service's (media.max_*_bytes is set above it).
    if (hasErrcode(err, "M_TOO_LARGE"))
      throw new DomainError("payload-too-large", 413, "The homeserver refuses uploads this large.");
    throw err;
  });
}

export const uploadMedia: ImmediateOperation<UploadMediaInput, Checked, UploadedMedia> = {
  mutation: "uploadMedia",
  description:
    "Uploads the request body to the media repository as the visitor's virtual user (REST only: the bytes are the raw request body).",
  level: "page",
  fields,
  output: MediaUploadType,
  kind: "media.upload",
  answer: "result",
  async check(input, errors) {
    // Outside the allow-list: 400, already refused before the body was read.
    const declared = declaredType(input.mime);
    const voice = input.voice === "true";
    if (voice && declared.kind !== "audio")
      errors.push({ field: "voice", message: "only audio uploads can be voice messages" });
    if (input.body.length === 0)
      throw validationError("The upload is empty.", [{ field: "(body)", message: "must not be empty" }]);
    const { width, height } = await inspectUpload(declared, input.body);
    const sha256 = createHash("sha256").update(input.body).digest("hex");
    return { mime: input.mime, declared, filename: input.filename, voice, body: input.body, sha256, width, height };
  },
  signatureArray: (c, s) => signatureArrays.upload(s.siteId, s.pageSlug, c.mime, c.filename, c.sha256, s.challenge),
  async perform(c, scope, { homeserver, provisioner }) {
    const userId = await provisioner.ensureVisitor(scope.siteId, scope.author, null);
    const url = await uploadAs(homeserver, userId, c.body, c.declared.mime, c.filename);
    const result: UploadedMedia = {
      url,
      filename: c.filename,
      mimetype: c.declared.mime,
      size: c.body.length,
      voice: c.voice,
    };
    return {
      result,
      persist: async (tx) => {
        await recordUpload(tx, {
          url,
          siteId: scope.siteId,
          pageSlug: scope.pageSlug,
          authorPublicKey: scope.author,
          mimetype: c.declared.mime,
          size: c.body.length,
          filename: c.filename,
          width: c.width,
          height: c.height,
          sha256: c.sha256,
          voice: c.voice,
        });
      },
    };
  },
};
