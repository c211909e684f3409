// The rooms events are projected into: page rooms (Room) and sites' Spaces (Site.spaceRoomId).
// Recorded by provisioning; the projection only reads them.
import type { Db } from "../db/client.ts";
import type { Room } from "../db/client.ts";

export function pageRoom(db: Db, roomId: string): Promise<Room | null> {
  return db.room.findUnique({ where: { roomId } });
}

/** The site whose Space the room is, or null. */
export async function spaceSiteId(db: Db, roomId: string): Promise<string | null> {
  return (await db.site.findUnique({ where: { spaceRoomId: roomId }, select: { id: true } }))?.id ?? null;
}

/** The room a page's comments go to now. */
export async function activeRoomId(db: Db, siteId: string, pageSlug: string): Promise<string | null> {
  return (await db.room.findFirst({ where: { siteId, pageSlug, state: "active" }, select: { roomId: true } }))?.roomId ?? null;
}

/** Every room a page has had (an upgrade or retirement leaves older ones), newest first. */
export async function pageRoomIds(db: Db, siteId: string, pageSlug: string): Promise<string[]> {
  const rooms = await db.room.findMany({ where: { siteId, pageSlug }, orderBy: { createdAt: "desc" }, select: { roomId: true } });
  return rooms.map((r) => r.roomId);
}
