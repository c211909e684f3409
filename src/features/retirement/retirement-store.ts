// The Retirement aggregate: a request takes effect locally in one transaction and leaves a
// Retirement row; the pass (pass.ts) works through the rows and finally clears every local row
// of what was retired.
import { forgetPositions, repositionPage } from "../../projection/position-store.ts";
import type { Db, Tx } from "../../db/client.ts";
import type { Retirement } from "../../db/client.ts";

export class RetirementStore {
  constructor(private readonly db: Db) {}

  /** In one transaction: the site is retiring, its claim token void, its rooms retiring, its queued writes dropped, the row recorded. */
  async retireSite(siteId: string): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await tx.site.update({ where: { id: siteId }, data: { status: "retiring", claimTokenHash: null } });
      await tx.room.updateMany({ where: { siteId, state: "active" }, data: { state: "retiring" } });
      await dropQueued(tx, { siteId }, `site ${siteId} retired`);
      await record(tx, "site", siteId, "");
    });
  }

  /**
   * In one transaction: the page's room is retiring, its queued writes dropped, the row recorded.
   * Conditional on the room being active, so of two concurrent requests only one retires it: false for the other.
   */
  async retireRoom(room: { roomId: string; siteId: string; pageSlug: string }): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.room.updateMany({
        where: { roomId: room.roomId, state: "active" },
        data: { state: "retiring" },
      });
      if (count === 0) return false;
      await dropQueued(
        tx,
        { siteId: room.siteId, pageSlug: room.pageSlug },
        `page ${room.siteId}/${room.pageSlug} retired`,
      );
      await record(tx, "page", room.siteId, room.pageSlug);
      return true;
    });
  }

  /** Every row, oldest first. */
  all(): Promise<Retirement[]> {
    return this.db.retirement.findMany({ orderBy: { id: "asc" } });
  }

  async recordFailure(id: number, lastError: string): Promise<void> {
    await this.db.retirement.updateMany({ where: { id }, data: { attempts: { increment: 1 }, lastError } });
  }

  /** Deletes the row, and with it the projections and registry rows of the rooms (and a retired site's rows). */
  async clear(row: Retirement, roomIds: string[]): Promise<void> {
    const inRooms = { roomId: { in: roomIds } };
    await this.db.$transaction(
      async (tx) => {
        // Another instance finished it meanwhile (and the slug may have started afresh since).
        if ((await tx.retirement.deleteMany({ where: { id: row.id } })).count === 0) return;
        await tx.comment.deleteMany({ where: inRooms });
        await tx.reaction.deleteMany({ where: inRooms });
        await tx.roomMember.deleteMany({ where: inRooms });
        await tx.roomState.deleteMany({ where: inRooms });
        await tx.roomTyping.deleteMany({ where: inRooms });
        await tx.matrixEvent.deleteMany({ where: inRooms });
        await tx.projectionRepair.deleteMany({ where: inRooms });
        await tx.rolePowerLevel.deleteMany({ where: inRooms });
        await tx.room.deleteMany({ where: inRooms });
        if (row.targetType === "page") {
          await tx.liveEvent.deleteMany({ where: { siteId: row.siteId, pageSlug: row.pageSlug } });
          // The page's moderators (and pending claims) go with it: its next room starts fresh.
          await tx.roleClaim.deleteMany({ where: { siteId: row.siteId, pageSlug: row.pageSlug } });
          await repositionPage(tx, row.siteId, row.pageSlug);
          return;
        }
        const site = { siteId: row.siteId };
        await tx.liveEvent.deleteMany({ where: site });
        await tx.comment.deleteMany({ where: site });
        await forgetPositions(tx, row.siteId);
        await tx.submission.deleteMany({ where: site });
        await tx.siteVerification.deleteMany({ where: site });
        await tx.siteOrigin.deleteMany({ where: site });
        // Its webhooks too: the id, registered again, is a new owner's.
        await tx.webhookDelivery.deleteMany({ where: site });
        await tx.webhookEndpoint.deleteMany({ where: site });
        await tx.room.deleteMany({ where: site });
        await tx.site.deleteMany({ where: { id: row.siteId } });
        // Page retirements of the site were covered by this one.
        await tx.retirement.deleteMany({ where: site });
      },
      { timeout: 60_000 },
    );
  }
}

/**
 * Writes accepted but not yet sent would otherwise land in the retiring rooms, or in a fresh
 * room provisioned for a retired page.
 */
async function dropQueued(tx: Tx, where: { siteId: string; pageSlug?: string }, reason: string): Promise<void> {
  await tx.submission.updateMany({
    where: { ...where, status: "queued" },
    data: { status: "failed", lastError: reason, leaseUntil: null, completedAt: new Date() },
  });
}

async function record(tx: Tx, targetType: "site" | "page", siteId: string, pageSlug: string): Promise<void> {
  await tx.retirement.upsert({
    where: { targetType_siteId_pageSlug: { targetType, siteId, pageSlug } },
    create: { targetType, siteId, pageSlug },
    update: {},
  });
}
