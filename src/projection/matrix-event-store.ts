// The event store (MatrixEvent): every room event the homeserver pushed, keyed by event id.
// Idempotency rests on event ids, never on transaction ids (a homeserver may renumber its
// transactions after a restart, so a reused id can carry new events). The read model is derived
// from the store, and can be rebuilt from it.
import { isUniqueViolation, type Db, type Prisma, type Tx } from "../db/client.ts";
import { eventRelation } from "./message-content.ts";
import type { RoomEvent } from "./room-event.ts";

/** "waiting" until applied; stays so while its room is not recorded. "failed": see ProjectionRepair. */
export type EventStatus = "applied" | "waiting" | "failed";

const parse = (row: { json: string }): RoomEvent => JSON.parse(row.json) as RoomEvent;

/**
 * Stores a pushed event as "waiting" unless it is stored already, and returns its stored
 * status; null for an event without ids, which can be neither stored nor applied. Tolerates
 * any other shape: a malformed event is stored, then recorded for repair when applied.
 */
export async function storeEvent(db: Db, event: RoomEvent): Promise<EventStatus | null> {
  if (typeof event?.event_id !== "string" || typeof event.room_id !== "string") return null;
  const existing = await db.matrixEvent.findUnique({ where: { eventId: event.event_id }, select: { status: true } });
  if (existing) return existing.status as EventStatus;
  const relation = eventRelation(event);
  try {
    await db.matrixEvent.create({
      data: {
        eventId: event.event_id,
        roomId: event.room_id,
        type: String(event.type ?? ""),
        sender: String(event.sender ?? ""),
        stateKey: typeof event.state_key === "string" ? event.state_key : null,
        originServerTs: BigInt(Number.isSafeInteger(event.origin_server_ts) ? event.origin_server_ts : 0),
        relatesTo: relation?.relatesTo ?? null,
        relType: relation?.relType ?? null,
        json: JSON.stringify(event),
        status: "waiting",
      },
    });
  } catch (err) {
    // Stored concurrently by another instance.
    if (isUniqueViolation(err)) return storeEvent(db, event);
    throw err;
  }
  return "waiting";
}

const APPLY_TRANSACTION = { maxWait: 10_000, timeout: 60_000 };

/**
 * Runs `apply` in one transaction that marks the stored event applied, unless it already was (a
 * concurrent or earlier apply got there first): true when it ran. A throw rolls both back.
 */
export async function applyOnce(db: Db, eventId: string, apply: (tx: Tx) => Promise<void>): Promise<boolean> {
  let ran = false;
  await db.$transaction(async (tx) => {
    const { count } = await tx.matrixEvent.updateMany({ where: { eventId, status: { not: "applied" } }, data: { status: "applied" } });
    if (count !== 1) return;
    ran = true;
    await apply(tx);
  }, APPLY_TRANSACTION);
  return ran;
}


/** The stored events matching `where`, in arrival (seq) order, read in batches. */
export async function* storedEvents(db: Db, where: Prisma.MatrixEventWhereInput = {}): AsyncGenerator<RoomEvent> {
  const batch = 100;
  let after = 0;
  for (;;) {
    const rows = await db.matrixEvent.findMany({ where: { ...where, seq: { gt: after } }, orderBy: { seq: "asc" }, take: batch, select: { seq: true, json: true } });
    for (const row of rows) yield parse(row);
    if (rows.length < batch) return;
    after = rows.at(-1)!.seq;
  }
}

/** The stored status of each of `eventIds` that is stored. */
export async function storedStatuses(db: Db, eventIds: string[]): Promise<Map<string, EventStatus>> {
  const rows = await db.matrixEvent.findMany({ where: { eventId: { in: eventIds } }, select: { eventId: true, status: true } });
  return new Map(rows.map((r) => [r.eventId, r.status as EventStatus]));
}

/** Where a stored event points (its relation as indexed), or null when it is not stored. */
export function storedRelation(tx: Tx, eventId: string): Promise<{ relType: string | null; relatesTo: string | null } | null> {
  return tx.matrixEvent.findUnique({ where: { eventId }, select: { relType: true, relatesTo: true } });
}

export async function loadEvent(tx: Tx, eventId: string): Promise<RoomEvent | null> {
  const row = await tx.matrixEvent.findUnique({ where: { eventId }, select: { json: true } });
  return row && parse(row);
}

/** Stored events of the room relating to any of `targets` by one of `relTypes`. */
export async function loadRelations(tx: Tx, roomId: string, targets: string[], relTypes: readonly string[]): Promise<RoomEvent[]> {
  const rows = await tx.matrixEvent.findMany({
    where: { roomId, relatesTo: { in: targets }, relType: { in: [...relTypes] } },
    orderBy: { seq: "asc" },
    select: { json: true },
  });
  return rows.map(parse);
}

/** Every stored redaction of the room. */
export async function roomRedactions(tx: Tx, roomId: string): Promise<RoomEvent[]> {
  const rows = await tx.matrixEvent.findMany({ where: { roomId, relType: "m.redaction" }, orderBy: { seq: "asc" }, select: { json: true } });
  return rows.map(parse);
}

/**
 * The newest stored state event of a kind (origin_server_ts, then event id): the current one,
 * or with `at` the one in force when that event was sent. Derived from the store, so it does not
 * depend on arrival order.
 */
export async function stateEvent(tx: Tx, roomId: string, type: string, stateKey: string, at?: RoomEvent): Promise<RoomEvent | null> {
  const ts = at ? BigInt(at.origin_server_ts) : null;
  const row = await tx.matrixEvent.findFirst({
    where: {
      roomId,
      type,
      stateKey,
      ...(at ? { OR: [{ originServerTs: { lt: ts! } }, { originServerTs: ts!, eventId: { lte: at.event_id } }] } : {}),
    },
    orderBy: [{ originServerTs: "desc" }, { eventId: "desc" }],
    select: { json: true },
  });
  return row && parse(row);
}

/** How many stored events there are per status (a rebuild's summary). */
export async function countByStatus(db: Db): Promise<Map<EventStatus, number>> {
  const counts = await db.matrixEvent.groupBy({ by: ["status"], _count: { _all: true } });
  return new Map(counts.map((c) => [c.status as EventStatus, c._count._all]));
}
