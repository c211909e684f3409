// Applies appservice transactions to the read model. Every room event but the AS bot's (invites
// of the bot, events of its DMs: src/features/governance/bot/intake.ts) is stored first
// (matrix-event-store.ts) and applied once its room is known, by its kind (event-kinds.ts);
// applying recomputes what the event affects from the store, so repeated, retried and
// out-of-order events converge. An event that cannot be applied is recorded for repair and
// skipped, never blocking what follows; only a database failure fails the transaction (and the
// homeserver retries it). Ephemeral data may be emitted twice on a retry, which is harmless:
// typing is a state, receipts and presence repeat.
import { driverStatements, type Db } from "../db/client.ts";
import type { MatrixNames } from "../matrix/names.ts";
import type { PageChange } from "../cluster/signals.ts";
import { PROJECTION_PAGE_LANES } from "../config/limits.ts";
import { lanesOf, runLanes } from "./apply-lanes.ts";
import { EphemeralProjector, type EphemeralEvent } from "./ephemeral.ts";
import { ephemeralKind, roomEventKind, type RoomEventKind } from "./event-kinds.ts";
import { applyOnce, storedEvents, storeEvent } from "./matrix-event-store.ts";
import { malformation } from "./message-content.ts";
import { recordFailure, recordRejected, resolveRepair } from "./repair-store.ts";
import type { RoomEvent } from "./room-event.ts";
import type { CommentChangeHook } from "./page-context.ts";
import { projectedRoom, recordedRoom, type ProjectedRoom } from "./room-store.ts";

/**
 * The database is unreachable or overloaded (connection, timeout, lock, conflict), as opposed to
 * the event being unapplyable: the transaction must fail so the homeserver retries it.
 */
function databaseTrouble(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "string" && /^P(1\d{3}|2024|2028|2034)$/.test(code)) return true;
  return /database is locked|SQLITE_BUSY|ECONNREFUSED|Connection terminated/i.test(
    String((err as Error)?.message ?? err),
  );
}

export class Projector {
  readonly ephemeral: EphemeralProjector;
  /** One at a time in this process: transactions (within one, pages side by side: apply-lanes.ts), replays of waiting events, retries. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly names: MatrixNames,
    /**
     * Called after applying, once committed: the pages (pageSlug null: a site's Space) whose
     * derived data may have changed, so caches drop them; then delivers the new live events.
     */
    private readonly applied: (changes: PageChange[]) => Promise<void>,
    /** False for a rebuild, which announces nothing. */
    private readonly live = true,
    /** Takes the AS bot's events (DMs, invites of the bot; src/features/governance/bot/intake.ts) out of a transaction: true means skip it here. */
    private readonly botIntake?: (event: RoomEvent) => Promise<boolean>,
  ) {
    this.ephemeral = new EphemeralProjector(db, names);
  }

  /** Applies one appservice transaction. Its id is no key: events are known by their ids. */
  async applyTransaction(events: RoomEvent[], ephemeral: EphemeralEvent[] = []): Promise<void> {
    const changes = new Changes();
    try {
      await this.serially(async () => {
        const pending: RoomEvent[] = [];
        for (const event of events) {
          if (await this.botIntake?.(event)) continue;
          // Committed before the room is checked, so a room recorded meanwhile replays it.
          const stored = await storeEvent(this.db, event);
          if (stored !== null && stored.status !== "applied") pending.push(stored.event);
        }
        // Each room looked up once, after its events were stored (a room recorded later replays them).
        const roomIds = [...new Set(pending.map((event) => event.room_id))];
        const rooms = new Map(
          await Promise.all(roomIds.map(async (roomId) => [roomId, await projectedRoom(this.db, roomId)] as const)),
        );
        const lanes = lanesOf(pending, (event) => laneKey(event.room_id, rooms.get(event.room_id)!));
        await runLanes(lanes, PROJECTION_PAGE_LANES, async (event) =>
          changes.add(await this.apply(event, rooms.get(event.room_id))),
        );
      });
      for (const event of ephemeral) await ephemeralKind(event)?.apply(this.ephemeral, event);
    } finally {
      // What was committed before a failure is announced all the same.
      await this.applied(changes.list());
    }
  }

  /** Records a pushed entry that cannot be stored or applied at all (see transaction-entries.ts), so it is skipped, never dropped silently. */
  recordRejected(key: string, entry: { roomId: string | null; type: string | null }, reason: string): Promise<void> {
    return recordRejected(this.db, key, entry, reason);
  }

  /** Applies, in arrival order, the events stored before their room was recorded; call it right after recording one. */
  async replayWaiting(roomId: string): Promise<void> {
    const changes = new Changes();
    try {
      // The room's own reads (room info, roles) change with its recording.
      const projected = await recordedRoom(this.db, roomId);
      const { room, spaceOf } = projected;
      changes.add(room ?? (spaceOf === null ? null : { siteId: spaceOf, pageSlug: null }));
      await this.serially(async () => {
        // Recorded before this replay was called: one lookup serves all its waiting events.
        for await (const event of storedEvents(this.db, { roomId, status: "waiting" }))
          changes.add(await this.apply(event, projected));
      });
    } finally {
      await this.applied(changes.list());
    }
  }

  /** Applies a stored event again (a repair's retry); a new failure re-records the repair. */
  async retryStored(eventId: string): Promise<void> {
    const changes = new Changes();
    try {
      await this.serially(async () => {
        for await (const event of storedEvents(this.db, { eventId, status: { not: "applied" } }))
          changes.add(await this.apply(event));
      });
    } finally {
      await this.applied(changes.list());
    }
  }

  /** Called with each applied event's origin_server_ts (metrics: the projection lag). */
  onProjected: ((originServerTs: number) => void) | null = null;
  /** Records comment changes in their applying transactions (webhooks: src/features/webhooks/); null: none. */
  onCommentChanged: CommentChangeHook | null = null;
  /** A page room's tombstone was applied (the rooms feature adopts the successor); must not throw. */
  onRoomReplaced: ((roomId: string, successor: string) => void) | null = null;

  /**
   * Applies a stored event (as stored) if its room is known (a page room, or a site's Space for
   * room state); otherwise it keeps waiting. An event that cannot be applied is recorded for
   * repair. Returns the page (or for a Space, the site) whose derived data the applied event may
   * have changed. `projected`: its room, when the caller looked it up after the event was stored.
   */
  async apply(event: RoomEvent, projected?: ProjectedRoom): Promise<PageChange | null> {
    const { room, spaceOf } = projected ?? (await projectedRoom(this.db, event.room_id));
    if (!room && spaceOf === null) return null;
    let applied: boolean;
    // Known once the event is well-formed (a malformed one may not even be matched).
    const known: { kind: RoomEventKind | null } = { kind: null };
    const reads = driverStatements(this.db);
    try {
      applied = await applyOnce(this.db, event.event_id, async (tx) => {
        const problem = malformation(event);
        if (problem) throw new Error(problem);
        // First: an applying transaction holds the live events' turn from its first live event
        // to its commit (src/sse/live-event-store.ts), so nothing else should follow them.
        await resolveRepair(tx, reads, event.event_id);
        const kind = (known.kind = roomEventKind(event));
        await kind?.inAnyRoom?.(tx, event);
        if (room)
          await kind?.inPageRoom?.(
            { tx, reads, room, names: this.names, live: this.live, commentChanged: this.onCommentChanged ?? undefined },
            event,
          );
      });
    } catch (err) {
      if (databaseTrouble(err)) throw err;
      await recordFailure(this.db, event, (err as Error)?.message ?? String(err));
      return null;
    }
    if (!applied) return null;
    this.onProjected?.(event.origin_server_ts);
    const successor = room ? known.kind?.successor?.(event) : null;
    if (successor) this.onRoomReplaced?.(event.room_id, successor);
    return room ? { siteId: room.siteId, pageSlug: room.pageSlug } : { siteId: spaceOf!, pageSlug: null };
  }

  private serially(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => {});
    return run;
  }
}

/** An event's lane (apply-lanes.ts): its page, for a page room's event; else its room. */
const laneKey = (roomId: string, { room }: ProjectedRoom): string =>
  room ? `page\u0000${room.siteId}\u0000${room.pageSlug}` : `room\u0000${roomId}`;

/** The pages changed by a batch of applied events, each once. */
class Changes {
  private readonly pages = new Map<string, PageChange>();

  add(change: PageChange | null): void {
    if (change)
      this.pages.set(`${change.siteId}\u0000${change.pageSlug ?? ""}`, {
        siteId: change.siteId,
        pageSlug: change.pageSlug,
      });
  }

  list(): PageChange[] {
    return [...this.pages.values()];
  }
}
