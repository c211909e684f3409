// PUT …/visitors/avatar: a visitor's avatar on a site, from raw image bytes. Immediate: uploaded
// as the visitor's virtual user, set on its profile and carried into its rooms' member events;
// the answer is the avatar. A replay re-applies the profile write (the avatar may have been
// deleted or replaced since).
import { signatureArrays } from "../../../contract/signatures.ts";
import { createHash } from "node:crypto";
import type { Tx } from "../../../db/client.ts";
import { validationError } from "../../../core/errors.ts";
import { declaredType, type DeclaredType } from "../../media/media-types.ts";
import { inspectUpload } from "../../media/sniff.ts";
import { applyAvatar } from "../avatars.ts";
import type { ImmediateOperation, OperationServices, RawBodyInput, SiteInput } from "../../../writes/operation.ts";
import { builder } from "../../../graphql/builder.ts";
import { uploadAs } from "../../media/operations/upload-media.ts";
import { recordAvatar } from "../visitor-store.ts";

/** mime: the declared type, signed as sent. */
const fields = { mime: "String!", filename: "String" } as const;
export type SetAvatarInput = SiteInput<typeof fields> & RawBodyInput;

/** An avatar write's answer: the avatar's mxc:// URL (null once deleted); responses present it as media. */
export interface AvatarResult {
  avatarUrl: string | null;
}

/** The avatar writes' mutation type (fields: src/features/visitors/graphql.ts). */
export const AvatarResultType = builder.objectRef<AvatarResult & { replayed: boolean }>("VisitorAvatarResult");

interface Checked {
  mime: string;
  declared: DeclaredType;
  filename: string | null;
  body: Buffer;
  sha256: string;
}

/** The declared type of an avatar: an allowed upload type that is an image (image/*); 400 validation-error otherwise. */
export function avatarType(mime: string): DeclaredType {
  const declared = declaredType(mime);
  if (declared.kind !== "image")
    throw validationError(`An avatar must be an image; ${JSON.stringify(mime)} is not.`, [
      { field: "mime", message: "an image type (image/*)" },
    ]);
  return declared;
}

/** Sets the avatar on the virtual user's profile and in its rooms; returns how to record it (in the write's transaction). */
async function setAvatar(services: OperationServices, userId: string, url: string): Promise<(tx: Tx) => Promise<void>> {
  await applyAvatar(services.homeserver, userId, url);
  return (tx) => recordAvatar(tx, userId, url);
}

export const uploadAvatar: ImmediateOperation<SetAvatarInput, Checked, AvatarResult> = {
  mutation: "uploadAvatar",
  description:
    "Sets the visitor's avatar on the site from the request body (an image; REST only): uploaded as the virtual user, set on its profile and in its rooms' member events.",
  level: "site",
  fields,
  output: AvatarResultType,
  kind: "avatar.upload",
  answer: "result",
  async check(input) {
    const declared = avatarType(input.mime);
    if (input.body.length === 0)
      throw validationError("The avatar is empty.", [{ field: "(body)", message: "must not be empty" }]);
    await inspectUpload(declared, input.body);
    const sha256 = createHash("sha256").update(input.body).digest("hex");
    return { mime: input.mime, declared, filename: input.filename, body: input.body, sha256 };
  },
  signatureArray: (c, s) => signatureArrays.uploadAvatar(s.siteId, c.mime, c.sha256, s.challenge),
  async perform(c, scope, services) {
    const userId = await services.provisioner.ensureVisitor(scope.siteId, scope.author, null);
    const url = await uploadAs(services.homeserver, userId, c.body, c.declared.mime, c.filename);
    return { result: { avatarUrl: url }, persist: await setAvatar(services, userId, url) };
  },
  async replayed(result, scope, services) {
    if (result.avatarUrl === null) return;
    const userId = await services.provisioner.ensureVisitor(scope.siteId, scope.author, null);
    await (await setAvatar(services, userId, result.avatarUrl))(services.db);
  },
};
