// The SiteVerification aggregate: pending origin verifications, and the verified origin a
// successful one leaves.
import type { Db } from "../../db/client.ts";

export interface PendingVerification {
  token: string;
  /** JSON array of the methods. */
  methods: string;
  attempts: number;
  expiresAt: Date;
}

export class VerificationStore {
  constructor(private readonly db: Db) {}

  /** Records the pending verification, replacing one of the same site and origin. */
  async replacePending(siteId: string, origin: string, pending: PendingVerification): Promise<void> {
    await this.db.siteVerification.upsert({
      where: { siteId_origin: { siteId, origin } },
      create: { siteId, origin, ...pending },
      update: pending,
    });
  }

  find(siteId: string, origin: string) {
    return this.db.siteVerification.findUnique({ where: { siteId_origin: { siteId, origin } } });
  }

  /** Spends one confirm attempt of this token, in one conditional update; false when none is left (or the token was replaced). */
  async spendAttempt(id: number, token: string, maxAttempts: number): Promise<boolean> {
    const spent = await this.db.siteVerification.updateMany({
      where: { id, token, attempts: { lt: maxAttempts } },
      data: { attempts: { increment: 1 } },
    });
    return spent.count > 0;
  }

  /** In one transaction: the origin becomes verified (a config origin stays a config origin) and the verification goes. */
  async completed(siteId: string, origin: string, id: number, token: string): Promise<void> {
    await this.db.$transaction([
      this.db.siteOrigin.upsert({
        where: { siteId_origin: { siteId, origin } },
        create: { siteId, origin, source: "verified" },
        update: {},
      }),
      this.db.siteVerification.deleteMany({ where: { id, token } }),
    ]);
  }
}
