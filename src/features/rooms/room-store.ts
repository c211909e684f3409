// The Room aggregate: the registry of page rooms and what the projection recorded of them
// (current state, members, the event store), as the room reads, provisioning and the power
// levels of roles use them.
import type { Db } from "../../db/client.ts";
import { driverStatements } from "../../db/client.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

export class RoomStore {
  constructor(private readonly db: Db) {}

  /** The page's active room, if it has one: on every submission the worker performs, a statement prepared on the driver (src/db/driver-statements.ts). */
  async activeRoomId(siteId: string, pageSlug: string): Promise<string | null> {
    const [row] = await driverStatements(this.db).all<{ roomId: string }>(
      `SELECT "roomId" FROM "Room" WHERE "siteId" = $1 AND "pageSlug" = $2 AND "state" = 'active' LIMIT 1`,
      [siteId, pageSlug],
    );
    return row?.roomId ?? null;
  }

  /** The site's active page rooms by room id. */
  activeRooms(siteId: string): Promise<Array<{ roomId: string; pageSlug: string }>> {
    return this.db.room.findMany({
      where: { siteId, state: "active" },
      select: { roomId: true, pageSlug: true },
      orderBy: { roomId: "asc" },
    });
  }

  /** A page's active room. */
  activeRoom(siteId: string, pageSlug: string) {
    return this.db.room.findFirst({ where: { siteId, pageSlug, state: "active" } });
  }

  find(roomId: string) {
    return this.db.room.findUnique({ where: { roomId } });
  }

  /** The states of a page's rooms that are active or retiring. */
  async pageRoomStates(siteId: string, pageSlug: string): Promise<string[]> {
    return (
      await this.db.room.findMany({
        where: { siteId, pageSlug, state: { in: ["active", "retiring"] } },
        select: { state: true },
      })
    ).map((r) => r.state);
  }

  /** A page's rooms that are no longer active. */
  inactivePageRooms(siteId: string, pageSlug: string) {
    return this.db.room.findMany({ where: { siteId, pageSlug, state: { not: "active" } } });
  }

  /** Every room of the site, whatever its state. */
  roomsOf(siteId: string) {
    return this.db.room.findMany({ where: { siteId } });
  }

  countActiveRooms(siteId: string): Promise<number> {
    return this.db.room.count({ where: { siteId, state: "active" } });
  }

  /** Registers a page room (idempotent: a room adopted by another instance is already there). */
  async register(roomId: string, siteId: string, pageSlug: string, roomVersion: string): Promise<void> {
    await this.db.room.upsert({ where: { roomId }, create: { roomId, siteId, pageSlug, roomVersion }, update: {} });
  }

  /**
   * The replacement becomes the page's active room and every other room of the page that was
   * active is superseded (the upgraded one, and any room a reinstatement replaces), at once.
   */
  async activate(roomId: string, siteId: string, pageSlug: string, roomVersion: string): Promise<void> {
    await this.db.$transaction([
      this.db.room.updateMany({
        where: { siteId, pageSlug, state: "active", roomId: { not: roomId } },
        data: { state: "superseded" },
      }),
      this.db.room.upsert({
        where: { roomId },
        create: { roomId, siteId, pageSlug, roomVersion },
        update: { state: "active", roomVersion },
      }),
    ]);
  }

  /** Marks a room superseded (it stays in the registry: its comments are still listed). */
  async supersede(roomId: string): Promise<void> {
    await this.db.room.update({ where: { roomId }, data: { state: "superseded" } });
  }

  /** Records a room the service cannot manage as the page's quarantined room (not active). */
  async registerQuarantined(roomId: string, siteId: string, pageSlug: string, roomVersion: string): Promise<void> {
    await this.db.room.upsert({
      where: { roomId },
      create: { roomId, siteId, pageSlug, roomVersion, state: "quarantined" },
      update: { state: "quarantined" },
    });
  }

  /**
   * The site's Space and its power levels' content (null when either is not there yet); null
   * when the site is not registered. On every site roles read: a driver statement.
   */
  async spacePowerLevels(siteId: string): Promise<{ spaceRoomId: string | null; content: string | null } | null> {
    const [row] = await driverStatements(this.db).all<{ spaceRoomId: string | null; content: string | null }>(
      `SELECT s."spaceRoomId" AS "spaceRoomId", p."content" AS "content" FROM "Site" s
  LEFT JOIN "RoomState" p ON p."roomId" = s."spaceRoomId" AND p."type" = $2 AND p."stateKey" = ''
  WHERE s."id" = $1`,
      [siteId, EventType.PowerLevels],
    );
    return row ?? null;
  }

  /**
   * The page's active room and its power levels' content (each null when not there yet); null
   * when the site is not registered. On every page roles read: a driver statement.
   */
  async pagePowerLevels(
    siteId: string,
    pageSlug: string,
  ): Promise<{ roomId: string | null; content: string | null } | null> {
    const [row] = await driverStatements(this.db).all<{ roomId: string | null; content: string | null }>(
      `SELECT r."roomId" AS "roomId", p."content" AS "content" FROM "Site" s
  LEFT JOIN (SELECT "roomId" FROM "Room" WHERE "siteId" = $1 AND "pageSlug" = $2 AND "state" = 'active' LIMIT 1) r ON TRUE
  LEFT JOIN "RoomState" p ON p."roomId" = r."roomId" AND p."type" = $3 AND p."stateKey" = ''
  WHERE s."id" = $1`,
      [siteId, pageSlug, EventType.PowerLevels],
    );
    return row ?? null;
  }

  /** The current state events (state key "") of these types in these rooms. */
  currentState(roomIds: string[], types: string[]) {
    return this.db.roomState.findMany({ where: { roomId: { in: roomIds }, stateKey: "", type: { in: types } } });
  }

  /** The room's state events of one type, every state key. */
  stateOfType(roomId: string, type: string) {
    return this.db.roomState.findMany({ where: { roomId, type } });
  }

  /** Joined members other than `except`. */
  joinedCount(roomId: string, except: string): Promise<number> {
    return this.db.roomMember.count({ where: { roomId, membership: "join", userId: { not: except } } });
  }

  async membership(roomId: string, userId: string): Promise<string | null> {
    return (await this.db.roomMember.findUnique({ where: { roomId_userId: { roomId, userId } } }))?.membership ?? null;
  }

  /** The latest stored membership event of the user in the room. */
  lastMembershipEvent(roomId: string, userId: string): Promise<{ json: string; status: string } | null> {
    return this.db.matrixEvent.findFirst({
      where: { roomId, type: EventType.Member, stateKey: userId },
      orderBy: { seq: "desc" },
      select: { json: true, status: true },
    });
  }

  /** The room's latest stored events of these types, newest first. */
  latestEvents(roomId: string, types: string[], take: number) {
    return this.db.matrixEvent.findMany({
      where: { roomId, type: { in: types } },
      orderBy: [{ originServerTs: "desc" }, { seq: "desc" }],
      take,
    });
  }
}
