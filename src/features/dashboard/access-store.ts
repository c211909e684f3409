// The projected power levels the dashboard's access checks read: of one site's rooms, and the
// rooms whose levels name one user.
import type { Db } from "../../db/client.ts";
import type { RoomLevels } from "./governor-roles.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

export class AccessStore {
  constructor(private readonly db: Db) {}

  /** The power levels of the site's Space (pageSlug null) and of its active page rooms. */
  async siteRoomLevels(siteId: string): Promise<RoomLevels[]> {
    const [site, rooms] = await Promise.all([
      this.db.site.findUnique({ where: { id: siteId }, select: { spaceRoomId: true } }),
      this.db.room.findMany({ where: { siteId, state: "active" }, select: { roomId: true, pageSlug: true } }),
    ]);
    const slugOf = new Map<string, string | null>(rooms.map((r) => [r.roomId, r.pageSlug]));
    if (site?.spaceRoomId) slugOf.set(site.spaceRoomId, null);
    if (slugOf.size === 0) return [];
    const states = await this.db.roomState.findMany({
      where: { roomId: { in: [...slugOf.keys()] }, type: EventType.PowerLevels, stateKey: "" },
      select: { roomId: true, content: true },
    });
    return states.map((s) => ({ pageSlug: slugOf.get(s.roomId) ?? null, content: JSON.parse(s.content) as unknown }));
  }

  /**
   * The sites whose Space or active page rooms have power levels naming the user (a candidate
   * list: the caller derives the roles from the levels).
   */
  async sitesNaming(userId: string): Promise<string[]> {
    const states = await this.db.roomState.findMany({
      where: { type: EventType.PowerLevels, stateKey: "", content: { contains: JSON.stringify(userId) } },
      select: { roomId: true },
    });
    const roomIds = states.map((s) => s.roomId);
    if (roomIds.length === 0) return [];
    const [spaces, rooms] = await Promise.all([
      this.db.site.findMany({ where: { spaceRoomId: { in: roomIds } }, select: { id: true } }),
      this.db.room.findMany({ where: { roomId: { in: roomIds }, state: "active" }, select: { siteId: true } }),
    ]);
    return [...new Set([...spaces.map((s) => s.id), ...rooms.map((r) => r.siteId)])].sort();
  }
}
