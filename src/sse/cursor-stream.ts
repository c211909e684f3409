// Live events as an async iterator over a cursor: the rows after it, read in batches whenever
// the stream is poked (by the in-process fan-out its owner subscribes it to). Closing it (return)
// unsubscribes at once, even while it waits. A page's SSE stream and a dashboard's site activity
// are both one of these; each says how its rows are read, shown, checked and when it ends.
import type { LiveEvent } from "../db/client.ts";

const BATCH = 100;

export interface CursorStreamOptions {
  /** The rows after `cursor`, oldest first, at most `limit`. */
  read: (cursor: number, limit: number) => Promise<LiveEvent[]>;
  /** What a read's rows are delivered as (the cursor moves past all of them either way). */
  shown?: (rows: LiveEvent[]) => LiveEvent[];
  /** Checked before every read; when it throws, the stream ends with that error. */
  allowed?: () => Promise<void>;
  /** Wake to read (and so to check `allowed`) at least this often, even when not poked. */
  wakeEveryMs?: number;
  /** End once the rows there are have been delivered, rather than wait for more. */
  endWhenCaughtUp?: boolean;
}

export class CursorStream implements AsyncIterableIterator<LiveEvent> {
  cursor = 0;
  unsubscribe: () => void = () => {};
  private buffer: LiveEvent[] = [];
  private dirty = true;
  private closed = false;
  private waiter: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: CursorStreamOptions) {}

  /** Delivers `event` before any row read (a snapshot to start with). */
  push(event: LiveEvent): void {
    this.buffer.push(event);
  }

  poke(): void {
    this.dirty = true;
    this.waiter?.();
  }

  async next(): Promise<IteratorResult<LiveEvent>> {
    const { read, shown, allowed, wakeEveryMs, endWhenCaughtUp } = this.options;
    while (!this.closed) {
      const event = this.buffer.shift();
      if (event) return { value: event, done: false };
      if (this.dirty) {
        this.dirty = false;
        if (allowed) {
          try {
            await allowed();
          } catch (err) {
            await this.return();
            throw err;
          }
        }
        const rows = await read(this.cursor, BATCH);
        if (rows.length === BATCH) this.dirty = true;
        this.cursor = rows.at(-1)?.id ?? this.cursor;
        this.buffer = shown ? shown(rows) : rows;
        continue;
      }
      if (endWhenCaughtUp) break;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        if (wakeEveryMs !== undefined) this.timer = setTimeout(() => this.poke(), wakeEveryMs);
      });
      this.waiter = null;
      if (this.timer) clearTimeout(this.timer);
    }
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<LiveEvent>> {
    this.closed = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.waiter?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
