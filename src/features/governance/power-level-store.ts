// RolePowerLevel rows: the level the service means each user to have in each room of a site,
// and whether the homeserver accepted it (src/features/governance/power-levels.ts).
import type { Db } from "../../db/client.ts";

export class PowerLevelStore {
  constructor(private readonly db: Db) {}

  /** Records a level as written (a room created with it); an existing row stays. */
  async recordWritten(siteId: string, roomId: string, userId: string, level: number): Promise<void> {
    await this.db.rolePowerLevel.upsert({
      where: { roomId_userId: { roomId, userId } },
      create: { roomId, userId, siteId, level, written: true },
      update: {},
    });
  }

  rowsOf(siteId: string) {
    return this.db.rolePowerLevel.findMany({ where: { siteId } });
  }

  /** Drops the site's rows of rooms other than these. */
  async keepOnly(siteId: string, roomIds: string[]): Promise<void> {
    await this.db.rolePowerLevel.deleteMany({ where: { siteId, roomId: { notIn: roomIds } } });
  }

  /** Asks for `level` (null: none) to be written; throws a unique violation when another instance created the row meanwhile. */
  async want(siteId: string, roomId: string, userId: string, level: number | null): Promise<void> {
    await this.db.rolePowerLevel.upsert({
      where: { roomId_userId: { roomId, userId } },
      create: { roomId, userId, siteId, level, written: false },
      update: { level, written: false, attempts: 0, lastError: null },
    });
  }

  /** The rows still to write (of one site, or all), by room and user. */
  unwritten(siteId?: string) {
    return this.db.rolePowerLevel.findMany({
      where: { written: false, ...(siteId ? { siteId } : {}) },
      orderBy: [{ roomId: "asc" }, { userId: "asc" }],
    });
  }

  /** Marks the row written if it still asks for `level`: a change meanwhile stays unwritten. */
  async markWritten(roomId: string, userId: string, level: number | null): Promise<void> {
    await this.db.rolePowerLevel.updateMany({
      where: { roomId, userId, level, written: false },
      data: { written: true, lastError: null },
    });
  }

  async markFailed(roomId: string, lastError: string): Promise<void> {
    await this.db.rolePowerLevel.updateMany({
      where: { roomId, written: false },
      data: { attempts: { increment: 1 }, lastError },
    });
  }

  async sites(): Promise<string[]> {
    return (await this.db.rolePowerLevel.findMany({ distinct: ["siteId"], select: { siteId: true } })).map(
      (r) => r.siteId,
    );
  }
}
