// HMAC request signatures already accepted: each one authorizes a single request, so a replay
// inside its ±5 minute window is refused before it can have any effect.
import { createHash } from "node:crypto";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import { SIGNATURE_TOLERANCE_SECONDS } from "../../security/request-signature.ts";

export class SeenSignatures {
  constructor(private readonly db: Db) {}

  /**
   * Records an accepted signature; false when it was recorded before (a replay). The row is
   * kept until the signature's timestamp leaves the window, plus a second because the window
   * is checked in whole seconds.
   */
  async record(siteId: string, signature: string, timestampSeconds: number): Promise<boolean> {
    const digest = createHash("sha256")
      .update(siteId + signature, "utf8")
      .digest("hex");
    const expiresAt = new Date((timestampSeconds + SIGNATURE_TOLERANCE_SECONDS + 1) * 1000);
    try {
      await this.db.seenRequestSignature.create({ data: { digest, expiresAt } });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async pruneExpired(now: Date): Promise<void> {
    await this.db.seenRequestSignature.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
