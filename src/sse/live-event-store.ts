// The LiveEvent table: adding rows in turn, reading them after a cursor, pruning old ones.
//
// Live events must become visible in id order: readers follow them with an id cursor. On
// PostgreSQL an id is taken from a sequence at insert but the row appears at commit, so a
// transaction holding id N could commit after one holding N+1, and a reader already past N+1
// would never see N. Every transaction adds its live events only after locking one shared row,
// held until it commits, so ids are handed out in commit order. (SQLite serializes writers.)
import type { Db, Tx } from "../db/client.ts";
import { driverStatements, isUniqueViolation } from "../db/client.ts";
import type { LiveEvent } from "../db/client.ts";

const TURN_KEY = "live_event_turn";

/** Creates the row the turns lock; run once at start-up, before any live event is added. */
export async function prepareLiveEventTurns(db: Db): Promise<void> {
  try {
    await db.serviceSetting.upsert({ where: { key: TURN_KEY }, create: { key: TURN_KEY, value: "" }, update: {} });
  } catch (err) {
    // Another instance created it at the same moment.
    if (!isUniqueViolation(err)) throw err;
  }
}

/** Waits for this transaction's turn to add live events; the turn lasts until it commits. */
export async function takeLiveEventTurn(tx: Tx): Promise<void> {
  await tx.serviceSetting.updateMany({ where: { key: TURN_KEY }, data: { value: "" } });
}

/** Adds live events in a transaction of their own, in turn. */
export function addLiveEvents(db: Db, add: (tx: Tx) => Promise<unknown>): Promise<void> {
  return db.$transaction(async (tx) => {
    await takeLiveEventTurn(tx);
    await add(tx);
  });
}

/** The newest live event's id (0: none), of one page or of all. */
export async function latestLiveEventId(db: Db, page?: { siteId: string; pageSlug: string }): Promise<number> {
  const latest = await db.liveEvent.findFirst({ where: page, orderBy: { id: "desc" }, select: { id: true } });
  return latest?.id ?? 0;
}

const PAGES_AFTER = `SELECT "id", "siteId", "pageSlug" FROM "LiveEvent" WHERE "id" > $1 ORDER BY "id" ASC LIMIT $2`;

/**
 * The pages of up to `limit` live events after `afterId`, in id order, with each one's id. Polled
 * after every projected transaction, so on the driver, prepared once (it reads committed rows only).
 */
export function liveEventPagesAfter(
  db: Db,
  afterId: number,
  limit: number,
): Promise<{ id: number; siteId: string; pageSlug: string }[]> {
  return driverStatements(db).all(PAGES_AFTER, [afterId, limit]);
}

/** Up to `limit` of a page's live events after `afterId` (and up to `untilId`, when given), in id order. */
export function pageLiveEvents(
  db: Db,
  siteId: string,
  pageSlug: string,
  afterId: number,
  untilId: number | null,
  limit: number,
): Promise<LiveEvent[]> {
  return db.liveEvent.findMany({
    where: { siteId, pageSlug, id: untilId === null ? { gt: afterId } : { gt: afterId, lte: untilId } },
    orderBy: { id: "asc" },
    take: limit,
  });
}

/** Deletes the live events created before `before` (older than clients can resume from). */
export async function pruneLiveEvents(db: Db, before: Date): Promise<void> {
  await db.liveEvent.deleteMany({ where: { createdAt: { lt: before } } });
}
