// One subscription per page per instance, shared by every SSE client of the page: its frames
// are serialized once and the same bytes are written to each client. A client joins at the
// feed's position: what came before (its resume gap, from Last-Event-ID) it reads once on its
// own, while the feed's newer frames wait for it, bounded like its unsent output; frames it
// already has (ids up to its cursor) are skipped. The feed closes with its last client.
import type { SseWriter } from "./sse-writer.ts";

/** One serialized SSE message; `id` orders it in the event table. */
export interface Frame {
  id: number;
  bytes: Buffer;
}

export class SharedFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(private readonly log: (message: string) => void) {}

  /** Feeds open now (one per page with clients), for tests and figures. */
  get size(): number {
    return this.feeds.size;
  }

  /**
   * Adds a client to the feed for `key`, opened by `open` if there is none; rejects when
   * opening fails (the error belongs to every client that waited for it). The client is added
   * in the same step that finds the feed open, so the feed cannot close in between; it holds
   * the feed's frames until it goes live (see Feed.add for the rest).
   */
  async join(
    key: string,
    open: () => Promise<AsyncIterator<Frame>>,
    skipUpTo: number,
    maxPendingBytes: number,
    disconnect: () => void,
  ): Promise<{ position: number; client: FeedClient }> {
    for (;;) {
      let feed = this.feeds.get(key);
      if (!feed) {
        const created: Feed = new Feed(() => this.feeds.get(key) === created && this.feeds.delete(key), this.log);
        this.feeds.set(key, created);
        created.start(open);
        feed = created;
      }
      await feed.ready;
      // A feed whose last client left while this one waited is gone: open another.
      if (feed.isClosed) continue;
      return { position: feed.position, client: feed.add(skipUpTo, maxPendingBytes, disconnect) };
    }
  }
}

export class Feed {
  /** The id of the last frame handed to clients: a joining client reads everything up to it itself. */
  position = 0;
  readonly ready: Promise<void>;
  private readonly clients = new Set<FeedClient>();
  private iterator: AsyncIterator<Frame> | null = null;
  private batch: Frame[] = [];
  private flushing = false;
  private closed = false;
  private resolveReady!: () => void;
  private rejectReady!: (err: unknown) => void;

  constructor(
    private readonly forget: () => void,
    private readonly log: (message: string) => void,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // Nobody may be waiting when opening fails; the rejection is theirs, not an unhandled one.
    this.ready.catch(() => {});
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Consumes the subscription; its first frame (the typing snapshot) only fixes the position. */
  start(open: () => Promise<AsyncIterator<Frame>>): void {
    let began = false;
    void (async () => {
      try {
        this.iterator = await open();
        const first = await this.iterator.next();
        if (first.done) throw new Error("the feed ended before it began");
        this.position = first.value.id;
        began = true;
        this.resolveReady();
        for (;;) {
          const next = await this.iterator.next();
          if (next.done || this.closed) break;
          this.batch.push(next.value);
          // Frames arriving together go out together: one write per client per batch.
          if (!this.flushing) {
            this.flushing = true;
            setImmediate(() => this.flush());
          }
        }
      } catch (err) {
        // Before it began, the joining clients get the error; after, its clients are
        // disconnected (below) and resume with Last-Event-ID.
        if (began) this.log(`sse: a page feed failed: ${(err as Error).message}`);
        else this.rejectReady(err);
      } finally {
        this.flush();
        this.close();
      }
    })();
  }

  /**
   * A client, holding the feed's frames until it goes `live`; `skipUpTo` is the last id it
   * already has; `disconnect` ends its response (the feed ended, or too much waited for it).
   */
  add(skipUpTo: number, maxPendingBytes: number, disconnect: () => void): FeedClient {
    const client = new FeedClient(skipUpTo, maxPendingBytes, disconnect, () => {
      this.clients.delete(client);
      if (this.clients.size === 0) this.close();
    });
    if (this.closed) client.end();
    else this.clients.add(client);
    return client;
  }

  private flush(): void {
    this.flushing = false;
    if (this.batch.length === 0) return;
    const frames = this.batch;
    this.batch = [];
    this.position = frames.at(-1)!.id;
    const bytes = frames.length === 1 ? frames[0]!.bytes : Buffer.concat(frames.map((f) => f.bytes));
    for (const client of this.clients) client.deliver(frames, bytes);
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.forget();
    void this.iterator?.return?.();
    for (const client of this.clients) client.end();
    this.clients.clear();
  }
}

export class FeedClient {
  /** Frames waiting while the client reads its resume gap. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set once the client is live: frames go straight to it. */
  private writer: SseWriter | null = null;
  private gone = false;

  constructor(
    private skipUpTo: number,
    private readonly maxPendingBytes: number,
    private readonly disconnect: () => void,
    private readonly leave: () => void,
  ) {}

  /** Writes what waited and from now on writes frames as they come. */
  live(writer: SseWriter): void {
    if (this.gone) return;
    if (this.pending.length > 0) writer.writeRaw(Buffer.concat(this.pending));
    this.pending = [];
    this.writer = writer;
  }

  /** Leaves the feed (the client went away). */
  close(): void {
    if (this.gone) return;
    this.gone = true;
    this.leave();
  }

  /** The feed ended: the client is disconnected and resumes with Last-Event-ID. */
  end(): void {
    this.gone = true;
    this.disconnect();
  }

  deliver(frames: Frame[], bytes: Buffer): void {
    if (this.gone) return;
    // A client whose resume cursor is ahead of the feed gets only the frames it lacks.
    if (frames[0]!.id <= this.skipUpTo) {
      const fresh = frames.filter((f) => f.id > this.skipUpTo);
      if (fresh.length === 0) return;
      bytes = Buffer.concat(fresh.map((f) => f.bytes));
    }
    this.skipUpTo = 0;
    if (this.writer) {
      this.writer.writeRaw(bytes);
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > this.maxPendingBytes) {
      this.close();
      this.disconnect();
    }
  }
}
