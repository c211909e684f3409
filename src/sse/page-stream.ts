// A page's live events as an async iterator: rows of LiveEvent after a cursor, woken by the
// in-process fan-out. Closing it (return) unsubscribes at once, even while it waits.
import type { Db } from "../db/client.ts";
import type { LiveEvent } from "../db/generated/sqlite/client.ts";
import type { LiveEvents } from "./live-events.ts";

const BATCH = 100;

export class PageEvents {
  constructor(
    private readonly db: Db,
    /** The fan-out; its listener count shows whether closed streams let go of it. */
    readonly live: LiveEvents,
    /** The page's current typing state, sent first on every connect. */
    private readonly typingSnapshot: (siteId: string, pageSlug: string) => Promise<Record<string, unknown>>,
  ) {}

  /** An initial typing snapshot, then events after `after` (when null: only new ones). */
  async open(siteId: string, pageSlug: string, after: number | null): Promise<AsyncIterableIterator<LiveEvent>> {
    const stream = new PageStream(this.db, siteId, pageSlug);
    // Subscribe before reading the cursor so nothing published in between is missed.
    stream.unsubscribe = this.live.subscribe(siteId, pageSlug, () => stream.poke());
    try {
      if (after !== null) stream.cursor = after;
      else {
        const latest = await this.db.liveEvent.findFirst({ where: { siteId, pageSlug }, orderBy: { id: "desc" }, select: { id: true } });
        stream.cursor = latest?.id ?? 0;
      }
      // The snapshot carries the cursor as its id, so resuming from it loses nothing.
      const snapshot = await this.typingSnapshot(siteId, pageSlug);
      stream.push({ id: stream.cursor, siteId, pageSlug, type: "ephemeral", eventId: null, payload: JSON.stringify(snapshot), createdAt: new Date() });
      return stream;
    } catch (err) {
      // No one will ever return a stream that failed to open.
      await stream.return();
      throw err;
    }
  }
}

class PageStream implements AsyncIterableIterator<LiveEvent> {
  cursor = 0;
  unsubscribe: () => void = () => {};
  private buffer: LiveEvent[] = [];
  private dirty = true;
  private closed = false;
  private waiter: (() => void) | null = null;

  constructor(private readonly db: Db, private readonly siteId: string, private readonly pageSlug: string) {}

  push(event: LiveEvent): void {
    this.buffer.push(event);
  }

  poke(): void {
    this.dirty = true;
    this.waiter?.();
  }

  async next(): Promise<IteratorResult<LiveEvent>> {
    while (!this.closed) {
      const event = this.buffer.shift();
      if (event) return { value: event, done: false };
      if (this.dirty) {
        this.dirty = false;
        this.buffer = await this.db.liveEvent.findMany({
          where: { siteId: this.siteId, pageSlug: this.pageSlug, id: { gt: this.cursor } },
          orderBy: { id: "asc" },
          take: BATCH,
        });
        if (this.buffer.length === BATCH) this.dirty = true;
        const last = this.buffer.at(-1);
        if (last) this.cursor = last.id;
        continue;
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
      this.waiter = null;
    }
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<LiveEvent>> {
    this.closed = true;
    this.unsubscribe();
    this.waiter?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
