// Quarantined rooms (RoomQuarantine): why the service could not adopt a page room, since when,
// how many adoption attempts failed in a row and when the next one runs.
import type { Db } from "../../db/client.ts";

export type QuarantineRow = NonNullable<Awaited<ReturnType<QuarantineStore["find"]>>>;

export class QuarantineStore {
  constructor(private readonly db: Db) {}

  find(roomId: string) {
    return this.db.roomQuarantine.findUnique({ where: { roomId } });
  }

  /** Records a failed adoption: the first one quarantines, later ones count up; `nextRetryAt(failures)` schedules the next. */
  async recordFailure(
    roomId: string,
    siteId: string,
    pageSlug: string,
    reason: string,
    nextRetryAt: (failures: number) => Date | null,
  ): Promise<QuarantineRow> {
    const existing = await this.find(roomId);
    const failures = (existing?.failures ?? 0) + 1;
    return this.db.roomQuarantine.upsert({
      where: { roomId },
      create: { roomId, siteId, pageSlug, reason, failures, nextRetryAt: nextRetryAt(failures) },
      update: { reason, failures, nextRetryAt: nextRetryAt(failures) },
    });
  }

  /**
   * A retry's failure: the quarantine's count and next retry, if it still exists. Never creates
   * one: a retry running beside another (the periodic pass and an operator's or a test's call)
   * must not bring back a quarantine the other has just cleared.
   */
  async recordRetryFailure(roomId: string, reason: string, nextRetryAt: (failures: number) => Date | null) {
    const existing = await this.find(roomId);
    if (!existing) return;
    const failures = existing.failures + 1;
    await this.db.roomQuarantine.updateMany({
      where: { roomId },
      data: { reason, failures, nextRetryAt: nextRetryAt(failures) },
    });
  }

  async clear(roomId: string): Promise<void> {
    await this.db.roomQuarantine.deleteMany({ where: { roomId } });
  }

  /** Quarantines whose automatic retry is due. */
  due(now: Date) {
    return this.db.roomQuarantine.findMany({
      where: { nextRetryAt: { lte: now } },
      orderBy: { nextRetryAt: "asc" },
      take: 100,
    });
  }

  /** One page of quarantines (optionally of one site), oldest first; and their total. */
  async list(page: number, perPage: number, siteId: string | null): Promise<{ rows: QuarantineRow[]; total: number }> {
    const where = siteId === null ? {} : { siteId };
    const [rows, total] = await Promise.all([
      this.db.roomQuarantine.findMany({
        where,
        orderBy: [{ firstQuarantinedAt: "asc" }, { roomId: "asc" }],
        skip: (page - 1) * perPage,
        take: perPage,
      }),
      this.db.roomQuarantine.count({ where }),
    ]);
    return { rows, total };
  }
}
