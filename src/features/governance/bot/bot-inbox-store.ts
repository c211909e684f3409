// The AS bot's rows: its DM rooms (BotRoom) and its durable inbox of events (BotInboxEvent).
import { driverStatements, type Db } from "../../../db/client.ts";

const BOT_ROOM = `SELECT 1 AS "found" FROM "BotRoom" WHERE "roomId" = $1`;

export class BotInboxStore {
  constructor(private readonly db: Db) {}

  room(roomId: string) {
    return this.db.botRoom.findUnique({ where: { roomId } });
  }

  /** Asked of every pushed event, so on the driver, prepared once (the rows are committed when recorded). */
  async isBotRoom(roomId: string): Promise<boolean> {
    return (await driverStatements(this.db).all(BOT_ROOM, [roomId])).length > 0;
  }

  /** Records (or re-records) a room the bot was invited to, with what the bot did: "joined" or "declined". */
  async recordInvite(roomId: string, inviter: string, state: string): Promise<void> {
    await this.db.botRoom.upsert({ where: { roomId }, create: { roomId, inviter, state }, update: { inviter, state } });
  }

  async markLeft(roomId: string): Promise<void> {
    await this.db.botRoom.update({ where: { roomId }, data: { state: "left" } });
  }

  /** Stores an event; throws a unique violation when it is stored already. */
  async add(eventId: string, roomId: string, json: string): Promise<void> {
    await this.db.botInboxEvent.create({ data: { eventId, roomId, json } });
  }

  /** The oldest row not leased at `now`. */
  due(now: Date) {
    return this.db.botInboxEvent.findFirst({
      where: { OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
      orderBy: { seq: "asc" },
    });
  }

  /** Leases the row until `until` and counts the attempt, if its lease is still `leaseUntil`; false when another instance took it. */
  async lease(seq: number, leaseUntil: Date | null, until: Date): Promise<boolean> {
    const leased = await this.db.botInboxEvent.updateMany({
      where: { seq, leaseUntil },
      data: { leaseUntil: until, attempts: { increment: 1 } },
    });
    return leased.count > 0;
  }

  /** Puts a retry off until `until`. */
  async retryAt(seq: number, until: Date): Promise<void> {
    await this.db.botInboxEvent.update({ where: { seq }, data: { leaseUntil: until } });
  }

  async remove(seq: number): Promise<void> {
    await this.db.botInboxEvent.deleteMany({ where: { seq } });
  }
}
