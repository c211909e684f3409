// DashboardSession rows: a signed-in Matrix user's session, by the SHA-256 of its token; and
// SpentOpenIdToken rows: the OpenID tokens already exchanged for one.
import { type Db, isUniqueViolation } from "../../db/client.ts";

export interface SessionRow {
  id: string;
  userId: string;
  expiresAt: Date;
}

export class SessionStore {
  constructor(private readonly db: Db) {}

  async create(id: string, tokenHash: string, userId: string, expiresAt: Date): Promise<void> {
    await this.db.dashboardSession.create({ data: { id, tokenHash, userId, expiresAt } });
  }

  /** The session of this token hash while it has not expired. */
  live(tokenHash: string, now: Date): Promise<SessionRow | null> {
    return this.db.dashboardSession.findFirst({
      where: { tokenHash, expiresAt: { gt: now } },
      select: { id: true, userId: true, expiresAt: true },
    });
  }

  /** Deletes the session of this token hash; false when there was none. */
  async delete(tokenHash: string): Promise<boolean> {
    return (await this.db.dashboardSession.deleteMany({ where: { tokenHash } })).count > 0;
  }

  /**
   * Records an OpenID token as exchanged, until `expiresAt`; false when it already was. One
   * insert on the primary key, so of two instances exchanging the same token at once one wins.
   */
  async spendOpenIdToken(tokenHash: string, expiresAt: Date): Promise<boolean> {
    try {
      await this.db.spentOpenIdToken.create({ data: { tokenHash, expiresAt } });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** Drops expired sessions and spent tokens (what signing in sweeps, so both tables stay small). */
  async deleteExpired(now: Date): Promise<void> {
    await this.db.dashboardSession.deleteMany({ where: { expiresAt: { lte: now } } });
    await this.db.spentOpenIdToken.deleteMany({ where: { expiresAt: { lte: now } } });
  }
}
