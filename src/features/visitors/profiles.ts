// A visitor's profile on one site (GET …/visitors/profile): the display name and avatar of the
// virtual user that site_id + key derive. Another site derives another user, so profiles (and
// avatars) are site-scoped; an unknown visitor has null fields.
import type { Db } from "../../db/client.ts";
import { VisitorStore } from "./visitor-store.ts";
import { validationError } from "../../core/errors.ts";
import type { Sites } from "../sites/sites.ts";
import type { MatrixNames } from "../../matrix/names.ts";
import { parsePublicKey } from "../../security/author-proof.ts";

export interface VisitorProfile {
  displayName: string | null;
  /** The avatar's mxc:// URL. */
  avatarUrl: string | null;
}

export class VisitorProfiles {
  private readonly store: VisitorStore;

  constructor(
    db: Db,
    private readonly sites: Sites,
    private readonly names: MatrixNames,
  ) {
    this.store = new VisitorStore(db);
  }

  /** 400 for a malformed site id or key, 404 for an unregistered site. */
  async profile(siteId: string, authorPublicKey: string): Promise<VisitorProfile> {
    await this.sites.requireReadable(siteId);
    const key = parsePublicKey(authorPublicKey);
    if (!key)
      throw validationError("Invalid author_public_key.", [
        { field: "author_public_key", message: "must be a base64url Ed25519 public key (32 bytes)" },
      ]);
    const userId = this.names.visitorUserId(siteId, key.bytes);
    return this.store.profile(userId);
  }
}
