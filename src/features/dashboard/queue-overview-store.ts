// The operator's view of the durable submission queue: how deep it is, the submissions that
// failed for good (with why), and putting one back in its page's lane.
import type { Db } from "../../db/client.ts";
import type { KeysetCursor } from "./cursors.ts";

export interface FailedSubmission {
  id: string;
  kind: string;
  siteId: string;
  pageSlug: string;
  attempts: number;
  lastError: string | null;
  updatedAt: Date;
}

export class QueueOverviewStore {
  constructor(private readonly db: Db) {}

  /** Submissions waiting to be performed (queued, whatever their next attempt time). */
  depth(): Promise<number> {
    return this.db.submission.count({ where: { status: "queued" } });
  }

  /** Up to `take` failed submissions, by when they failed (then id), after `after`. */
  failed(after: KeysetCursor | null, take: number): Promise<FailedSubmission[]> {
    return this.db.submission.findMany({
      where: {
        status: "failed",
        ...(after ? { OR: [{ updatedAt: { gt: after.at } }, { updatedAt: after.at, id: { gt: after.id } }] } : {}),
      },
      orderBy: [{ updatedAt: "asc" }, { id: "asc" }],
      take,
      select: {
        id: true,
        kind: true,
        siteId: true,
        pageSlug: true,
        attempts: true,
        lastError: true,
        updatedAt: true,
      },
    });
  }

  /**
   * Queues a failed submission again, its attempts counted afresh from 1: the next attempt is
   * then a resend, which first looks for an event an earlier attempt stored (src/queue/perform.ts),
   * so nothing is sent twice. False when it is not failed (or unknown).
   */
  async retry(id: string, now: Date): Promise<boolean> {
    const { count } = await this.db.submission.updateMany({
      where: { id, status: "failed" },
      data: { status: "queued", attempts: 1, nextAttemptAt: now, leaseUntil: null, lastError: null },
    });
    return count > 0;
  }

  status(id: string): Promise<{ status: string } | null> {
    return this.db.submission.findUnique({ where: { id }, select: { status: true } });
  }
}
