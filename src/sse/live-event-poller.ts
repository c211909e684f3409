// The one way live events reach open streams: new LiveEvent rows are found and their pages
// poked. It runs whenever the cluster signals that live events were stored (at once on the
// projecting instance, through PostgreSQL NOTIFY on the others) and, as a safety net for a
// lost signal, every live.fallback_poll_ms. The table, not the signal, says what is new.
import type { Db } from "../db/client.ts";
import { PeriodicPass } from "../cluster/periodic-pass.ts";
import type { LiveEvents } from "./live-events.ts";
import { latestLiveEventId, liveEventPagesAfter } from "./live-event-store.ts";

/** Rows one poll reads at most (the rest wait for the next). */
const BATCH = 1000;

export class LiveEventPoller {
  private lastSeen = 0;
  /** Polls run one at a time; a kick during a poll runs once more after it. */
  private readonly pass = new PeriodicPass(() =>
    this.poll().catch((err) => this.log(`live events: ${(err as Error).message}`)),
  );

  constructor(
    private readonly db: Db,
    private readonly live: LiveEvents,
    private readonly log: (m: string) => void,
    private readonly fallbackPollMs: number,
  ) {}

  /** From the newest event on: streams read what came before themselves. */
  async start(): Promise<void> {
    this.lastSeen = await latestLiveEventId(this.db);
    this.pass.start(this.fallbackPollMs);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** Polls soon; failures are logged (the next signal or the fallback poll tries again). */
  kick(): void {
    this.pass.kick();
  }

  /** Publishes every page that has events newer than the last poll. */
  private async poll(): Promise<void> {
    const fresh = await liveEventPagesAfter(this.db, this.lastSeen, BATCH);
    const pages = new Map(fresh.map((e) => [`${e.siteId}\u0000${e.pageSlug}`, e]));
    for (const { siteId, pageSlug } of pages.values()) this.live.publish(siteId, pageSlug);
    this.lastSeen = fresh.at(-1)?.id ?? this.lastSeen;
  }
}
