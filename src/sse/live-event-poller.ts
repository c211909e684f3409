// The one way live events reach open streams: new LiveEvent rows are found and their pages
// poked. The projecting instance polls right after each transaction (no delay); every
// instance also polls once a second, so SSE clients of any instance sharing the database
// see new events.
import type { Db } from "../db/client.ts";
import type { LiveEvents } from "./live-events.ts";

export const POLL_INTERVAL_MS = 1000;

export class LiveEventPoller {
  private lastSeen = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Polls run one at a time; a request during a poll runs once more after it. */
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly db: Db, private readonly live: LiveEvents, private readonly log: (m: string) => void) {}

  async start(): Promise<void> {
    const latest = await this.db.liveEvent.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
    this.lastSeen = latest?.id ?? 0;
    this.timer = setInterval(() => void this.poll().catch((err) => this.log(`live events: ${(err as Error).message}`)), POLL_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
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
