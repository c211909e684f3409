// DashboardSession rows: a signed-in Matrix user's session, by the SHA-256 of its token.
import type { Db } from "../../db/client.ts";

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

  /** Drops expired sessions (what signing in sweeps, so the table holds live sessions only). */
  async deleteExpired(now: Date): Promise<void> {
    await this.db.dashboardSession.deleteMany({ where: { expiresAt: { lte: now } } });
  }
}
