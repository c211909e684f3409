// The one way live events reach open streams: new LiveEvent rows are found and their pages
// poked. It runs whenever the cluster signals that live events were stored (at once on the
// projecting instance, through PostgreSQL NOTIFY on the others) and, as a safety net for a
// lost signal, every live.fallback_poll_ms. The table, not the signal, says what is new.
import type { Db } from "../db/client.ts";
import type { LiveEvents } from "./live-events.ts";

export class LiveEventPoller {
  private lastSeen = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Polls run one at a time; a request during a poll runs once more after it. */
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly db: Db,
    private readonly live: LiveEvents,
    private readonly log: (m: string) => void,
    private readonly fallbackPollMs: number,
  ) {}

  async start(): Promise<void> {
    const latest = await this.db.liveEvent.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
    this.lastSeen = latest?.id ?? 0;
    this.timer = setInterval(() => this.kick(), this.fallbackPollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Polls soon; failures are logged (the next signal or the fallback poll tries again). */
  kick(): void {
    this.poll().catch((err) => this.log(`live events: ${(err as Error).message}`));
  }

  /** Publishes every page that has events newer than the last poll. */
  async poll(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pollOnce();
      } while (this.again);
    })().finally(() => (this.running = null));
    return this.running;
  }

  private async pollOnce(): Promise<void> {
    const fresh = await this.db.liveEvent.findMany({
      where: { id: { gt: this.lastSeen } },
      orderBy: { id: "asc" },
      select: { id: true, siteId: true, pageSlug: true },
      take: 1000,
    });
    const pages = new Map(fresh.map((e) => [`${e.siteId}\u0000${e.pageSlug}`, e]));
    for (const { siteId, pageSlug } of pages.values()) this.live.publish(siteId, pageSlug);
    this.lastSeen = fresh.at(-1)?.id ?? this.lastSeen;
  }
}
