// Retirement requests and their state. A request takes effect locally at once (writes are
// refused, the claim token of a retired site stops working, queued writes are dropped) and
// leaves a Retirement row for the background pass (pass.ts), which does the slow, failure-prone
// Matrix work and finally clears the local rows.
import type { PageChange } from "../../cluster/signals.ts";
import type { Db, Tx } from "../../db/client.ts";
import { DomainError, notFound } from "../../core/errors.ts";
import { checkPath } from "../sites/sites.ts";

export type RetirementTarget = "site" | "page" | "room";

export interface RetirementState {
  targetType: RetirementTarget;
  /** The site id, `site/page`, or the room id. */
  targetId: string;
  siteId: string;
  pageSlug: string | null;
  /** "retiring" once requested; reads also answer "active" (and "superseded" for a room). */
  state: string;
}

type RoomRow = { roomId: string; siteId: string; pageSlug: string; state: string };

export class Retirements {
  constructor(
    private readonly db: Db,
    /** Ids of the sites declared in [sites], which the API cannot retire. */
    private readonly declared: (siteId: string) => boolean,
    /** Called after a request is recorded (reads of the page, or site, change): runs the pass soon. */
    private readonly requested: (change: PageChange) => void,
  ) {}

  /** Retires a site: idempotent while it is retiring. */
  async retireSite(siteId: string): Promise<RetirementState> {
    await this.requireSite(siteId);
    if (this.declared(siteId)) throw new DomainError("config-declared", 409, `Site ${siteId} is declared in [sites]; remove it from the configuration instead.`);
    await this.db.$transaction(async (tx) => {
      await tx.site.update({ where: { id: siteId }, data: { status: "retiring", claimTokenHash: null } });
      await tx.room.updateMany({ where: { siteId, state: "active" }, data: { state: "retiring" } });
      await dropQueued(tx, { siteId }, `site ${siteId} retired`);
      await record(tx, "site", siteId, "");
    });
    this.requested({ siteId, pageSlug: null });
    return siteState(siteId, "retiring");
  }

  /** Retires a page's active room: 404 when the page has none (unknown, or already retired). */
  async retirePage(siteId: string, pageSlug: string): Promise<RetirementState> {
    await this.requireSite(siteId, pageSlug);
    const room = await this.db.room.findFirst({ where: { siteId, pageSlug, state: "active" } });
    if (!room) throw roomNotFound(`Page ${siteId}/${pageSlug} has no active room.`);
    await this.retireRoomRow(room);
    return pageState(siteId, pageSlug, "retiring");
  }

  /** The operator's form: a page retirement named by its room. */
  async retireRoom(roomId: string): Promise<RetirementState> {
    const room = await this.db.room.findUnique({ where: { roomId } });
    if (room?.state !== "active") throw roomNotFound(`Room ${roomId} is not an active page room.`);
    await this.retireRoomRow(room);
    return roomState(room, "retiring");
  }

  /** A site's state while its row exists: "active" or "retiring". */
  async siteRetirement(siteId: string): Promise<RetirementState> {
    const site = await this.requireSite(siteId);
    return siteState(siteId, site.status);
  }

  /** A page's state while it has a room: "retiring" once requested, else "active". */
  async pageRetirement(siteId: string, pageSlug: string): Promise<RetirementState> {
    await this.requireSite(siteId, pageSlug);
    const rooms = await this.db.room.findMany({ where: { siteId, pageSlug, state: { in: ["active", "retiring"] } }, select: { state: true } });
    if (rooms.length === 0) throw roomNotFound(`Page ${siteId}/${pageSlug} has no room.`);
    return pageState(siteId, pageSlug, rooms.some((r) => r.state === "retiring") ? "retiring" : "active");
  }

  /** A room's state while it is in the registry. */
  async roomRetirement(roomId: string): Promise<RetirementState> {
    const room = await this.db.room.findUnique({ where: { roomId } });
    if (!room) throw roomNotFound(`Room ${roomId} is not a page room of this service.`);
    return roomState(room, room.state);
  }

  private async retireRoomRow(room: RoomRow): Promise<void> {
    await this.db.$transaction(async (tx) => {
      // Conditional, so of two concurrent requests the second is a 404 like any later one.
      const { count } = await tx.room.updateMany({ where: { roomId: room.roomId, state: "active" }, data: { state: "retiring" } });
      if (count === 0) throw roomNotFound(`Room ${room.roomId} is already retired.`);
      await dropQueued(tx, { siteId: room.siteId, pageSlug: room.pageSlug }, `page ${room.siteId}/${room.pageSlug} retired`);
      await record(tx, "page", room.siteId, room.pageSlug);
    });
    this.requested({ siteId: room.siteId, pageSlug: room.pageSlug });
  }

  private async requireSite(siteId: string, pageSlug?: string): Promise<{ status: string }> {
    checkPath(siteId, pageSlug);
    const site = await this.db.site.findUnique({ where: { id: siteId }, select: { status: true } });
    if (!site) throw notFound("site-not-found", `Site ${siteId} is not registered.`);
    return site;
  }
}

/**
 * Writes accepted but not yet sent would otherwise land in the retiring rooms, or in a fresh
 * room provisioned for a retired page.
 */
async function dropQueued(tx: Tx, where: { siteId: string; pageSlug?: string }, reason: string): Promise<void> {
  await tx.submission.updateMany({ where: { ...where, status: "queued" }, data: { status: "failed", lastError: reason, leaseUntil: null, completedAt: new Date() } });
}

async function record(tx: Tx, targetType: "site" | "page", siteId: string, pageSlug: string): Promise<void> {
  await tx.retirement.upsert({
    where: { targetType_siteId_pageSlug: { targetType, siteId, pageSlug } },
    create: { targetType, siteId, pageSlug },
    update: {},
  });
}

const siteState = (siteId: string, state: string): RetirementState => ({ targetType: "site", targetId: siteId, siteId, pageSlug: null, state });
const pageState = (siteId: string, pageSlug: string, state: string): RetirementState => ({ targetType: "page", targetId: `${siteId}/${pageSlug}`, siteId, pageSlug, state });
const roomState = (room: RoomRow, state: string): RetirementState => ({ targetType: "room", targetId: room.roomId, siteId: room.siteId, pageSlug: room.pageSlug, state });
const roomNotFound = (message: string) => notFound("room-not-found", message);
