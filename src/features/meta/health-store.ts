// What GET /health reads of the durable submission queue.
import type { Db } from "../../db/client.ts";

export class HealthStore {
  constructor(private readonly db: Db) {}

  /** Queued and failed submissions, and when the oldest queued one was accepted. */
  async queue(): Promise<{ queued: number; failed: number; oldestQueuedAt: Date | null }> {
    const [queued, failed, oldest] = await Promise.all([
      this.db.submission.count({ where: { status: "queued" } }),
      this.db.submission.count({ where: { status: "failed" } }),
      this.db.submission.findFirst({
        where: { status: "queued" },
        orderBy: { createdAt: "asc" },
        select: { createdAt: true },
      }),
    ]);
    return { queued, failed, oldestQueuedAt: oldest?.createdAt ?? null };
  }

  /** One round trip to the database (throws when it is unreachable). */
  async ping(): Promise<void> {
    await this.db.$queryRawUnsafe("SELECT 1");
  }
}
