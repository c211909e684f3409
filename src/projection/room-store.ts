// The rooms events are projected into: page rooms (Room) and sites' Spaces (Site.spaceRoomId).
// Recorded by provisioning; the projection only reads them, each event's on the driver (what
// provisioning committed).
import { driverStatements, type Db } from "../db/client.ts";
import type { Room } from "../db/client.ts";
import { asDate } from "../db/driver-statements.ts";

const ROOM = `SELECT "roomId", "siteId", "pageSlug", "roomVersion", "state", "createdAt", "updatedAt" FROM "Room" WHERE "roomId" = $1`;
const SPACE_SITE = `SELECT "id" FROM "Site" WHERE "spaceRoomId" = $1`;

type RoomRow = Omit<Room, "createdAt" | "updatedAt"> & { createdAt: string | Date; updatedAt: string | Date };

export async function pageRoom(db: Db, roomId: string): Promise<Room | null> {
  const [row] = await driverStatements(db).all<RoomRow>(ROOM, [roomId]);
  return row ? { ...row, createdAt: asDate(row.createdAt)!, updatedAt: asDate(row.updatedAt)! } : null;
}

/** The site whose Space the room is, or null. */
async function spaceSiteId(db: Db, roomId: string): Promise<string | null> {
  return (await driverStatements(db).all<{ id: string }>(SPACE_SITE, [roomId]))[0]?.id ?? null;
}

/** What a room's events are projected into: a page (a page room) or a site (its Space); both null: neither, or not recorded yet. */
export interface ProjectedRoom {
  room: Room | null;
  spaceOf: string | null;
}

export async function projectedRoom(db: Db, roomId: string): Promise<ProjectedRoom> {
  const room = await pageRoom(db, roomId);
  return { room, spaceOf: room ? null : await spaceSiteId(db, roomId) };
}

/**
 * projectedRoom, read through the Prisma client, which records rooms: right after a recording
 * committed, SQLite's driver read connections were seen to miss it (the replay then found the
 * room unknown and its waiting events stayed waiting).
 */
export async function recordedRoom(db: Db, roomId: string): Promise<ProjectedRoom> {
  const room = await db.room.findUnique({ where: { roomId } });
  if (room) return { room, spaceOf: null };
  const space = await db.site.findUnique({ where: { spaceRoomId: roomId }, select: { id: true } });
  return { room: null, spaceOf: space?.id ?? null };
}

/** The room a page's comments go to now. */
export async function activeRoomId(db: Db, siteId: string, pageSlug: string): Promise<string | null> {
  return (
    (await db.room.findFirst({ where: { siteId, pageSlug, state: "active" }, select: { roomId: true } }))?.roomId ??
    null
  );
}

/** Every room a page has had (an upgrade or retirement leaves older ones), newest first. */
export async function pageRoomIds(db: Db, siteId: string, pageSlug: string): Promise<string[]> {
  const rooms = await db.room.findMany({
    where: { siteId, pageSlug },
    orderBy: { createdAt: "desc" },
    select: { roomId: true },
  });
  return rooms.map((r) => r.roomId);
}
