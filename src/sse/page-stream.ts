// A page's live events as an async iterator (a CursorStream): rows of LiveEvent after a cursor,
// woken by the in-process fan-out, or, bounded by `until`, a finite read of the rows up to it (a
// client's resume gap). Ephemeral rows
// read together are coalesced: a typing state or a user's presence or receipt superseded by a
// later one in the same read is skipped, so a burst costs one frame per page, not one per event.
import type { Db } from "../db/client.ts";
import type { LiveEvent } from "../db/client.ts";
import type { LiveEvents } from "./live-events.ts";
import { latestLiveEventId, pageLiveEvents } from "./live-event-store.ts";
import { CursorStream } from "./cursor-stream.ts";

export class PageEvents {
  constructor(
    private readonly db: Db,
    /** The fan-out; its listener count shows whether closed streams let go of it. */
    readonly live: LiveEvents,
    /** The page's current typing state, sent first on every connect. */
    private readonly typingSnapshot: (siteId: string, pageSlug: string) => Promise<Record<string, unknown>>,
  ) {}

  /**
   * An initial typing snapshot, then events after `after` (when null: only new ones); with
   * `until`, only those up to it, and then the iterator ends.
   */
  async open(
    siteId: string,
    pageSlug: string,
    after: number | null,
    until: number | null = null,
  ): Promise<AsyncIterableIterator<LiveEvent>> {
    const stream = new CursorStream({
      read: (cursor, limit) => pageLiveEvents(this.db, siteId, pageSlug, cursor, until, limit),
      shown: coalesce,
      endWhenCaughtUp: until !== null,
    });
    // Subscribe before reading the cursor so nothing published in between is missed.
    if (until === null) stream.unsubscribe = this.live.subscribe(siteId, pageSlug, () => stream.poke());
    try {
      if (after !== null) stream.cursor = after;
      else stream.cursor = await latestLiveEventId(this.db, { siteId, pageSlug });
      // The snapshot carries the cursor as its id, so resuming from it loses nothing.
      const snapshot = await this.typingSnapshot(siteId, pageSlug);
      stream.push({
        id: stream.cursor,
        siteId,
        pageSlug,
        type: "ephemeral",
        eventId: null,
        payload: JSON.stringify(snapshot),
        createdAt: new Date(),
      });
      return stream;
    } catch (err) {
      // No one will ever return a stream that failed to open.
      await stream.return();
      throw err;
    }
  }
}

/** What an ephemeral row states a current value of: later rows with the same key supersede it. */
function supersedable(event: LiveEvent): string | null {
  if (event.type !== "ephemeral" || event.payload === null) return null;
  const payload = JSON.parse(event.payload) as { kind?: string; user?: unknown; receipt_type?: string };
  if (payload.kind === "typing") return "typing";
  if (payload.kind === "presence") return `presence\u0000${JSON.stringify(payload.user)}`;
  if (payload.kind === "receipt") return `receipt\u0000${payload.receipt_type}\u0000${JSON.stringify(payload.user)}`;
  return null;
}

/** The rows without the ephemeral states a later row of the same read replaces. */
export function coalesce(rows: LiveEvent[]): LiveEvent[] {
  const latest = new Map<string, number>();
  const keys = rows.map((row, i) => {
    const key = supersedable(row);
    if (key !== null) latest.set(key, i);
    return key;
  });
  return rows.filter((_, i) => keys[i] === null || latest.get(keys[i]!) === i);
}
