// Repairs (ProjectionRepair): events that could not be applied, recorded with their reason and
// skipped so they never block what follows; an operator's retry that applies one resolves it.
import type { Db, Tx } from "../db/client.ts";
import type { RoomEvent } from "./room-event.ts";

/** Marks the stored event failed and records (or re-records) its repair, in one transaction. */
export async function recordFailure(db: Db, event: RoomEvent, reason: string): Promise<void> {
  await db.$transaction([
    db.matrixEvent.update({ where: { eventId: event.event_id }, data: { status: "failed" } }),
    db.projectionRepair.upsert({
      where: { targetEventId: event.event_id },
      create: { targetEventId: event.event_id, roomId: event.room_id, eventType: typeof event.type === "string" ? event.type : null, reason },
      update: { reason, status: "pending", attempts: { increment: 1 } },
    }),
  ]);
}

/** The event was applied: its repair, if any, is resolved. */
export async function resolveRepair(tx: Tx, eventId: string): Promise<void> {
  await tx.projectionRepair.updateMany({ where: { targetEventId: eventId, status: { not: "resolved" } }, data: { status: "resolved" } });
}

/**
 * Records a pushed entry that cannot even be stored (not an event object, nested too deep,
 * malformed ephemeral data) under `key`, its event id or its place in the transaction: for
 * manual attention, as there is nothing to retry.
 */
export async function recordRejected(db: Db, key: string, entry: { roomId: string | null; type: string | null }, reason: string): Promise<void> {
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
