// Live events must become visible in id order: readers follow them with an id cursor. On
// PostgreSQL an id is taken from a sequence at insert but the row appears at commit, so a
// transaction holding id N could commit after one holding N+1, and a reader already past N+1
// would never see N. Every transaction adds its live events only after locking one shared row,
// held until it commits, so ids are handed out in commit order. (SQLite serializes writers.)
import type { Db, Tx } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";

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
