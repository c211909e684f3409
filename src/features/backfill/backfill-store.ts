// What a backfill records: the rows a rebuilt site needs before its events can be applied (the
// Site row and its Space, the page rooms), and how far each room's timeline has been read
// (BackfillProgress), so a killed run resumes and a later run reads only what came since.
import type { Db } from "../../db/client.ts";

export interface RoomProgress {
  nextToken: string | null;
  events: number;
}

export class BackfillStore {
  constructor(private readonly db: Db) {}

  /**
   * The site's row with its Space. A row the backfill creates has no ownership proof (no claim
   * token, no verified origin): it accepts writes only once it verifies an origin again (spec
   * item 10). A declared site's row and origins come from [sites] (Sites.syncDeclarations).
   */
  async recordSite(siteId: string, spaceRoomId: string): Promise<void> {
    // Another site's stale claim on the Space (a retired and re-registered id) gives way.
    await this.db.site.updateMany({ where: { spaceRoomId, id: { not: siteId } }, data: { spaceRoomId: null } });
    await this.db.site.upsert({
      where: { id: siteId },
      create: { id: siteId, source: "api", spaceRoomId },
      update: { spaceRoomId },
    });
  }

  /**
   * A page's rooms, oldest first: the newest is the page's active room, the older ones (its
   * upgrades' predecessors) superseded. A room being retired stays so.
   */
  async recordPageRooms(
    siteId: string,
    pageSlug: string,
    rooms: Array<{ roomId: string; roomVersion: string }>,
  ): Promise<void> {
    await this.db.$transaction(async (tx) => {
      for (const [i, room] of rooms.entries()) {
        const state = i === rooms.length - 1 ? "active" : "superseded";
        await tx.room.upsert({
          where: { roomId: room.roomId },
          create: { roomId: room.roomId, siteId, pageSlug, roomVersion: room.roomVersion, state },
          update: {},
        });
        await tx.room.updateMany({ where: { roomId: room.roomId, state: { not: "retiring" } }, data: { state } });
      }
    });
  }

  async progress(roomId: string): Promise<RoomProgress> {
    const row = await this.db.backfillProgress.findUnique({
      where: { roomId },
      select: { nextToken: true, events: true },
    });
    return row ?? { nextToken: null, events: 0 };
  }

  /** Records a page of the room's timeline as applied. */
  async advance(
    roomId: string,
    where: { siteId: string; pageSlug: string | null },
    nextToken: string | null,
    lastEventId: string,
    read: number,
  ): Promise<void> {
    await this.db.backfillProgress.upsert({
      where: { roomId },
      create: { roomId, ...where, nextToken, lastEventId, events: read },
      update: { nextToken, lastEventId, events: { increment: read } },
    });
  }

  /**
   * Gives the site's visitors without a recorded name the name the room's projection shows for
   * them, as the write side records the names it sets: otherwise their next write without a
   * display name would rename them to the neutral default.
   */
  async nameVisitors(siteId: string, roomId: string): Promise<void> {
    const unnamed = await this.db.virtualUser.findMany({
      where: { siteId, displayName: null },
      select: { userId: true },
    });
    if (unnamed.length === 0) return;
    const named = await this.db.roomMember.findMany({
      where: { roomId, userId: { in: unnamed.map((u) => u.userId) }, displayName: { not: null } },
      select: { userId: true, displayName: true },
    });
    for (const member of named)
      await this.db.virtualUser.updateMany({
        where: { userId: member.userId, displayName: null },
        data: { displayName: member.displayName },
      });
  }
}
