// The visitor aggregate: the virtual user a site id and a visitor key derive, and its avatar.
import { driverStatements, isUniqueViolation, type Db, type Tx } from "../../db/client.ts";

export class VisitorStore {
  constructor(private readonly db: Db) {}

  /** A recorded virtual user's name: on every submission the worker performs, a statement prepared on the driver (src/db/driver-statements.ts). */
  async findUser(userId: string): Promise<{ displayName: string | null } | null> {
    const [row] = await driverStatements(this.db).all<{ displayName: string | null }>(
      `SELECT "displayName" FROM "VirtualUser" WHERE "userId" = $1`,
      [userId],
    );
    return row ?? null;
  }

  /**
   * Records a registered virtual user; idempotent: another submission of the same new visitor
   * (here or on another instance) may record it at the same moment, and Prisma's upsert is a
   * read then a write on PostgreSQL, so the loser of that race reads the winner's row.
   */
  async recordUser(userId: string, siteId: string, publicKey: string) {
    try {
      return await this.db.virtualUser.upsert({ where: { userId }, create: { userId, siteId, publicKey }, update: {} });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return this.db.virtualUser.findUniqueOrThrow({ where: { userId } });
    }
  }

  async setDisplayName(userId: string, displayName: string): Promise<void> {
    await this.db.virtualUser.update({ where: { userId }, data: { displayName } });
  }

  async profile(userId: string): Promise<{ displayName: string | null; avatarUrl: string | null }> {
    const [user, avatar] = await Promise.all([
      this.db.virtualUser.findUnique({ where: { userId }, select: { displayName: true } }),
      this.db.visitorAvatar.findUnique({ where: { userId }, select: { url: true } }),
    ]);
    return { displayName: user?.displayName ?? null, avatarUrl: avatar?.url ?? null };
  }
}

/** The avatar on record for a virtual user: its mxc:// URL, or null. */
export async function recordedAvatar(db: Tx, userId: string): Promise<string | null> {
  return (await db.visitorAvatar.findUnique({ where: { userId }, select: { url: true } }))?.url ?? null;
}

/** Records a virtual user's avatar (null: none), in the write's transaction or on its own. */
export async function recordAvatar(db: Tx, userId: string, url: string | null): Promise<void> {
  if (url === null) await db.visitorAvatar.deleteMany({ where: { userId } });
  else await db.visitorAvatar.upsert({ where: { userId }, create: { userId, url }, update: { url } });
}
