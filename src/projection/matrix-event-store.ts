// The event store (MatrixEvent): every room event the homeserver pushed, keyed by event id.
// Idempotency rests on event ids, never on transaction ids (a homeserver may renumber its
// transactions after a restart, so a reused id can carry new events). The read model is derived
// from the store, and can be rebuilt from it. An event is committed before it is applied, and
// stored rows never change but for their status, which applying does not read: so applying
// reads the store on the driver, prepared once (src/db/driver-statements.ts), and sees what is
// committed, the event itself included.
import { driverStatements, type Db, type Prisma, type Tx } from "../db/client.ts";
import type { DriverStatements } from "../db/driver-statements.ts";
import { eventRelation } from "./message-content.ts";
import { REDACTION_REL } from "./relations.ts";
import type { RoomEvent } from "./room-event.ts";

/** "waiting" until applied; stays so while its room is not recorded. "failed": see ProjectionRepair. */
export type EventStatus = "applied" | "waiting" | "failed";

const parse = (row: { json: string }): RoomEvent => JSON.parse(row.json) as RoomEvent;

const EVENT = `SELECT "status", "relType", "relatesTo", "json" FROM "MatrixEvent" WHERE "eventId" = $1`;
const STORE_EVENT = `INSERT INTO "MatrixEvent" ("eventId", "roomId", "type", "sender", "stateKey", "originServerTs", "relatesTo", "relType", "json", "status", "receivedAt")
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'waiting', $10) ON CONFLICT ("eventId") DO NOTHING`;

interface EventRow {
  status: EventStatus;
  relType: string | null;
  relatesTo: string | null;
  json: string;
}

async function eventRow(reads: DriverStatements, eventId: string): Promise<EventRow | null> {
  return (await reads.all<EventRow>(EVENT, [eventId]))[0] ?? null;
}

/** A stored event as it is stored (a homeserver may push it again with other unsigned data), and its status. */
export interface StoredEvent {
  status: EventStatus;
  event: RoomEvent;
}

/**
 * Stores a pushed event as "waiting" unless it is stored already, and returns it as stored;
 * null for an event without ids, which can be neither stored nor applied. Tolerates any other
 * shape: a malformed event is stored, then recorded for repair when applied.
 */
export async function storeEvent(db: Db, event: RoomEvent): Promise<StoredEvent | null> {
  if (typeof event?.event_id !== "string" || typeof event.room_id !== "string") return null;
  const relation = eventRelation(event);
  // One statement for a new event; one stored already (by an earlier push, or concurrently by
  // another instance: the insert waits for that one to commit) is read back as stored.
  const { count } = await driverStatements(db).run(STORE_EVENT, [
    event.event_id,
    event.room_id,
    String(event.type ?? ""),
    String(event.sender ?? ""),
    typeof event.state_key === "string" ? event.state_key : null,
    Number.isSafeInteger(event.origin_server_ts) ? event.origin_server_ts : 0,
    relation?.relatesTo ?? null,
    relation?.relType ?? null,
    JSON.stringify(event),
    new Date(),
  ]);
  if (count === 1) return { status: "waiting", event };
  const existing = await eventRow(driverStatements(db), event.event_id);
  // Gone between the two (a retirement clears its rooms' events): stored afresh.
  return existing ? { status: existing.status, event: parse(existing) } : storeEvent(db, event);
}

const APPLY_TRANSACTION = { maxWait: 10_000, timeout: 60_000 };

/**
 * Runs `apply` in one transaction that marks the stored event applied, unless it already was (a
 * concurrent or earlier apply got there first): true when it ran. A throw rolls both back.
 */
export async function applyOnce(db: Db, eventId: string, apply: (tx: Tx) => Promise<void>): Promise<boolean> {
  let ran = false;
  await db.$transaction(async (tx) => {
    const { count } = await tx.matrixEvent.updateMany({
      where: { eventId, status: { not: "applied" } },
      data: { status: "applied" },
    });
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
    const rows = await db.matrixEvent.findMany({
      where: { ...where, seq: { gt: after } },
      orderBy: { seq: "asc" },
      take: batch,
      select: { seq: true, json: true },
    });
    for (const row of rows) yield parse(row);
    if (rows.length < batch) return;
    after = rows.at(-1)!.seq;
  }
}

/** The stored status of each of `eventIds` that is stored. */
export async function storedStatuses(db: Db, eventIds: string[]): Promise<Map<string, EventStatus>> {
  const rows = await db.matrixEvent.findMany({
    where: { eventId: { in: eventIds } },
    select: { eventId: true, status: true },
  });
  return new Map(rows.map((r) => [r.eventId, r.status as EventStatus]));
}

/** Where a stored event points (its relation as indexed), or null when it is not stored. */
export async function storedRelation(
  reads: DriverStatements,
  eventId: string,
): Promise<{ relType: string | null; relatesTo: string | null } | null> {
  return eventRow(reads, eventId);
}

export async function loadEvent(reads: DriverStatements, eventId: string): Promise<RoomEvent | null> {
  const row = await eventRow(reads, eventId);
  return row && parse(row);
}

/**
 * Stored events of the room relating to `eventId` by one of `relTypes`, and the redactions of it
 * and of them, each in arrival order: one statement (UNION drops the repeats of an event relating
 * to itself).
 */
export async function relationsOf(
  reads: DriverStatements,
  roomId: string,
  eventId: string,
  relTypes: readonly string[],
): Promise<{ related: RoomEvent[]; redactions: RoomEvent[] }> {
  const types = relTypes.map((_, i) => `$${i + 4}`).join(", ");
  const sql = `SELECT "seq", "relType", "json" FROM "MatrixEvent" WHERE "relatesTo" = $2 AND "roomId" = $1 AND ("relType" = $3 OR "relType" IN (${types}))
  UNION SELECT r."seq", r."relType", r."json" FROM "MatrixEvent" e JOIN "MatrixEvent" r ON r."relatesTo" = e."eventId"
  WHERE e."relatesTo" = $2 AND e."roomId" = $1 AND e."relType" IN (${types}) AND r."roomId" = $1 AND r."relType" = $3
  ORDER BY "seq"`;
  const rows = await reads.all<{ relType: string; json: string }>(sql, [roomId, eventId, REDACTION_REL, ...relTypes]);
  const of = (redactions: boolean) => rows.filter((r) => (r.relType === REDACTION_REL) === redactions).map(parse);
  return { related: of(false), redactions: of(true) };
}

const REDACTIONS = `SELECT "json" FROM "MatrixEvent" WHERE "roomId" = $1 AND "relType" = $2 ORDER BY "seq"`;

/** Every stored redaction of the room. */
export async function roomRedactions(reads: DriverStatements, roomId: string): Promise<RoomEvent[]> {
  return (await reads.all<{ json: string }>(REDACTIONS, [roomId, REDACTION_REL])).map(parse);
}

const NEWEST_STATE = `SELECT "json" FROM "MatrixEvent" WHERE "roomId" = $1 AND "type" = $2 AND "stateKey" = $3`;
const BY_TIMELINE = `ORDER BY "originServerTs" DESC, "eventId" DESC LIMIT 1`;
const STATE = `${NEWEST_STATE} ${BY_TIMELINE}`;
const STATE_AT = `${NEWEST_STATE} AND ("originServerTs" < $4 OR ("originServerTs" = $4 AND "eventId" <= $5)) ${BY_TIMELINE}`;

/**
 * The newest stored state event of a kind (origin_server_ts, then event id): the current one,
 * or with `at` the one in force when that event was sent. Derived from the store, so it does not
 * depend on arrival order.
 */
export async function stateEvent(
  reads: DriverStatements,
  roomId: string,
  type: string,
  stateKey: string,
  at?: RoomEvent,
): Promise<RoomEvent | null> {
  const [row] = await reads.all<{ json: string }>(
    at ? STATE_AT : STATE,
    at ? [roomId, type, stateKey, at.origin_server_ts, at.event_id] : [roomId, type, stateKey],
  );
  return row ? parse(row) : null;
}

/** How many stored events there are per status (a rebuild's summary). */
export async function countByStatus(db: Db): Promise<Map<EventStatus, number>> {
  const counts = await db.matrixEvent.groupBy({ by: ["status"], _count: { _all: true } });
  return new Map(counts.map((c) => [c.status as EventStatus, c._count._all]));
}
