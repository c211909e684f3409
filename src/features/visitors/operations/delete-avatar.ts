// DELETE …/visitors/avatar: removes a visitor's avatar on a site, from its profile and its
// rooms' member events. Immediate; without an avatar nothing changes (a successful no-op).
import { signatureArrays } from "../../../contract/signatures.ts";
import { applyAvatar } from "../avatars.ts";
import { recordAvatar, recordedAvatar } from "../visitor-store.ts";
import type { ImmediateOperation, RawBodyInput, SiteInput } from "../../../writes/operation.ts";
import { AvatarResultType, type AvatarResult } from "./upload-avatar.ts";

export const deleteAvatar: ImmediateOperation<SiteInput<{}> & RawBodyInput, null, AvatarResult> = {
  mutation: "deleteAvatar",
  description: "Removes the visitor's avatar on the site (a no-op without one).",
  level: "site",
  fields: {},
  output: AvatarResultType,
  kind: "avatar.delete",
  answer: "result",
  check: () => null,
  signatureArray: (_c, s) => signatureArrays.deleteAvatar(s.siteId, s.challenge),
  async perform(_c, scope, { db, homeserver }) {
    const userId = homeserver.names.visitorUserId(scope.siteId, Buffer.from(scope.author, "base64url"));
    const current = await recordedAvatar(db, userId);
    if (current) await applyAvatar(homeserver, userId, null);
    return {
      result: { avatarUrl: null },
      persist: (tx) => recordAvatar(tx, userId, null),
    };
  },
};
