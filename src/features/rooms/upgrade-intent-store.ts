// Room upgrade intents (RoomUpgradeIntent), keyed by the room being replaced.
import type { Db } from "../../db/client.ts";

export const INTENT_STATES = ["requested", "observed", "adopted", "failed", "manual"] as const;
export type IntentState = (typeof INTENT_STATES)[number];
export type IntentRow = NonNullable<Awaited<ReturnType<UpgradeIntentStore["find"]>>>;

export class UpgradeIntentStore {
  constructor(private readonly db: Db) {}

  find(roomId: string) {
    return this.db.roomUpgradeIntent.findUnique({ where: { roomId } });
  }

  /** The intent that made `replacementRoomId` the page's room, if any. */
  byReplacement(replacementRoomId: string) {
    return this.db.roomUpgradeIntent.findFirst({ where: { replacementRoomId, state: "adopted" } });
  }

  /** Records (or renews) an intent; a replacement already known (a tombstone) is kept. */
  async request(
    roomId: string,
    siteId: string,
    pageSlug: string,
    targetVersion: string,
    replacementRoomId: string | null,
  ): Promise<IntentRow> {
    const state: IntentState = replacementRoomId ? "observed" : "requested";
    return this.db.roomUpgradeIntent.upsert({
      where: { roomId },
      create: { roomId, siteId, pageSlug, targetVersion, replacementRoomId, state },
      update: { targetVersion, replacementRoomId, state, error: null },
    });
  }

  async update(
    roomId: string,
    data: { state: IntentState; replacementRoomId?: string; targetVersion?: string; error?: string | null },
  ): Promise<IntentRow> {
    return this.db.roomUpgradeIntent.update({ where: { roomId }, data });
  }

  /** Intents a crash or an outage left between request and adoption. */
  unfinished() {
    return this.db.roomUpgradeIntent.findMany({
      where: { state: { in: ["requested", "observed"] } },
      orderBy: { createdAt: "asc" },
      take: 100,
    });
  }

  async list(page: number, perPage: number, state: IntentState | null): Promise<{ rows: IntentRow[]; total: number }> {
    const where = state === null ? {} : { state };
    const [rows, total] = await Promise.all([
      this.db.roomUpgradeIntent.findMany({
        where,
        orderBy: [{ createdAt: "asc" }, { roomId: "asc" }],
        skip: (page - 1) * perPage,
        take: perPage,
      }),
      this.db.roomUpgradeIntent.count({ where }),
    ]);
    return { rows, total };
  }
}
