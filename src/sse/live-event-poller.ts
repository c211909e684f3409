// Only the instance the homeserver pushes transactions to projects events and publishes them
// in-process. Every instance also polls the LiveEvent table (one cheap query a second), so SSE
// clients connected to any instance sharing the database see new events.
import type { Db } from "../db/client.ts";
import type { LiveEvents } from "./live-events.ts";

export const POLL_INTERVAL_MS = 1000;

export class LiveEventPoller {
  private lastSeen = 0;
  private timer: NodeJS.Timeout | null = null;

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
