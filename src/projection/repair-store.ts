// Repairs (ProjectionRepair): events that could not be applied, recorded with their reason and
// skipped so they never block what follows; an operator's retry that applies one resolves it.
import type { Db, Tx } from "../db/client.ts";
import type { DriverStatements } from "../db/driver-statements.ts";
import type { RoomEvent } from "./room-event.ts";
import { REPAIR_RETRY_SCHEDULE_MS } from "../config/limits.ts";

export type RepairRow = NonNullable<Awaited<ReturnType<typeof findRepair>>>;
export const REPAIR_STATES = ["pending", "manual", "resolved"] as const;

/**
 * Marks the stored event failed and records (or re-records) its repair, in one transaction: a
 * retry is scheduled after each failed attempt (REPAIR_RETRY_SCHEDULE_MS); past the schedule the
 * repair is manual.
 */
export async function recordFailure(db: Db, event: RoomEvent, reason: string, now = new Date()): Promise<void> {
  const attempts = ((await findRepair(db, event.event_id))?.attempts ?? 0) + 1;
  const wait = REPAIR_RETRY_SCHEDULE_MS[attempts - 1];
  const schedule =
    wait === undefined
      ? { status: "manual", nextRetryAt: null }
      : { status: "pending", nextRetryAt: new Date(now.getTime() + wait) };
  await db.$transaction([
    db.matrixEvent.update({ where: { eventId: event.event_id }, data: { status: "failed" } }),
    db.projectionRepair.upsert({
      where: { targetEventId: event.event_id },
      create: {
        targetEventId: event.event_id,
        roomId: event.room_id,
        eventType: typeof event.type === "string" ? event.type : null,
        reason,
        attempts,
        ...schedule,
      },
      update: { reason, attempts, ...schedule },
    }),
  ]);
}

export function findRepair(db: Db, targetEventId: string) {
  return db.projectionRepair.findUnique({ where: { targetEventId } });
}

/** Pending repairs whose retry is due. */
export function dueRepairs(db: Db, now: Date) {
  return db.projectionRepair.findMany({
    where: { status: "pending", nextRetryAt: { lte: now } },
    orderBy: { nextRetryAt: "asc" },
    take: 100,
  });
}

/** An operator's retry: the repair is pending and due now; null when there is none. */
export async function requeueRepair(db: Db, targetEventId: string, now: Date): Promise<RepairRow> {
  return db.projectionRepair.update({ where: { targetEventId }, data: { status: "pending", nextRetryAt: now } });
}

/** One page of repairs (optionally of one status), oldest first; and their total. */
export async function listRepairs(
  db: Db,
  page: number,
  perPage: number,
  status: string | null,
): Promise<{ rows: RepairRow[]; total: number }> {
  const where = status === null ? {} : { status };
  const [rows, total] = await Promise.all([
    db.projectionRepair.findMany({
      where,
      orderBy: [{ createdAt: "asc" }, { targetEventId: "asc" }],
      skip: (page - 1) * perPage,
      take: perPage,
    }),
    db.projectionRepair.count({ where }),
  ]);
  return { rows, total };
}

const UNRESOLVED = `SELECT 1 AS "found" FROM "ProjectionRepair" WHERE "targetEventId" = $1 AND "status" <> 'resolved'`;

/**
 * The event was applied: its repair, if any, is resolved. Repairs are recorded outside applying
 * transactions, so the driver sees any there is; the update runs only then (it seldom is).
 */
export async function resolveRepair(tx: Tx, reads: DriverStatements, eventId: string): Promise<void> {
  if ((await reads.all(UNRESOLVED, [eventId])).length === 0) return;
  await tx.projectionRepair.updateMany({
    where: { targetEventId: eventId, status: { not: "resolved" } },
    data: { status: "resolved", nextRetryAt: null },
  });
}

/**
 * Records a pushed entry that cannot even be stored (not an event object, nested too deep,
 * malformed ephemeral data) under `key`, its event id or its place in the transaction: for
 * manual attention, as there is nothing to retry.
 */
export async function recordRejected(
  db: Db,
  key: string,
  entry: { roomId: string | null; type: string | null },
  reason: string,
): Promise<void> {
  await db.projectionRepair.upsert({
    where: { targetEventId: key },
    create: { targetEventId: key, roomId: entry.roomId, eventType: entry.type, reason, status: "manual" },
    update: { reason, status: "manual", attempts: { increment: 1 } },
  });
}

/** Repairs waiting for an operator or a retry (metrics). */
export function pendingRepairs(db: Db): Promise<number> {
  return db.projectionRepair.count({ where: { status: "pending" } });
}

/** A repair with nothing to retry (its event is not stored): manual. Whether it was. */
export async function manualIfUnstored(db: Db, targetEventId: string): Promise<boolean> {
  if ((await db.matrixEvent.count({ where: { eventId: targetEventId } })) > 0) return false;
  await db.projectionRepair.update({ where: { targetEventId }, data: { status: "manual", nextRetryAt: null } });
  return true;
}
