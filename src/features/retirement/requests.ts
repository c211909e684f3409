// Retirement requests and their state. A request takes effect locally at once (writes are
// refused, the claim token of a retired site stops working, queued writes are dropped) and
// leaves a Retirement row for the background pass (pass.ts), which does the slow, failure-prone
// Matrix work and finally clears the local rows.
import type { PageChange } from "../../cluster/signals.ts";
import type { Db } from "../../db/client.ts";
import { DomainError, notFound } from "../../core/errors.ts";
import { RoomStore } from "../rooms/room-store.ts";
import { SiteStore } from "../sites/site-store.ts";
import { checkPath } from "../sites/sites.ts";
import { RetirementStore } from "./retirement-store.ts";

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
  private readonly store: RetirementStore;
  private readonly sites: SiteStore;
  private readonly rooms: RoomStore;

  constructor(
    db: Db,
    /** Ids of the sites declared in [sites], which the API cannot retire. */
    private readonly declared: (siteId: string) => boolean,
    /** Called after a request is recorded (reads of the page, or site, change): runs the pass soon. */
    private readonly requested: (change: PageChange) => void,
  ) {
    this.store = new RetirementStore(db);
    this.sites = new SiteStore(db);
    this.rooms = new RoomStore(db);
  }

  /** Retires a site: idempotent while it is retiring. */
  async retireSite(siteId: string): Promise<RetirementState> {
    await this.requireSite(siteId);
    if (this.declared(siteId))
      throw new DomainError(
        "config-declared",
        409,
        `Site ${siteId} is declared in [sites]; remove it from the configuration instead.`,
      );
    await this.store.retireSite(siteId);
    this.requested({ siteId, pageSlug: null });
    return siteState(siteId, "retiring");
  }

  /** Retires a page's active room: 404 when the page has none (unknown, or already retired). */
  async retirePage(siteId: string, pageSlug: string): Promise<RetirementState> {
    await this.requireSite(siteId, pageSlug);
    const room = await this.rooms.activeRoom(siteId, pageSlug);
    if (!room) throw roomNotFound(`Page ${siteId}/${pageSlug} has no active room.`);
    await this.retireRoomRow(room);
    return pageState(siteId, pageSlug, "retiring");
  }

  /** The operator's form: a page retirement named by its room. */
  async retireRoom(roomId: string): Promise<RetirementState> {
    const room = await this.rooms.find(roomId);
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
    const states = await this.rooms.pageRoomStates(siteId, pageSlug);
    if (states.length === 0) throw roomNotFound(`Page ${siteId}/${pageSlug} has no room.`);
    return pageState(siteId, pageSlug, states.includes("retiring") ? "retiring" : "active");
  }

  /** A room's state while it is in the registry. */
  async roomRetirement(roomId: string): Promise<RetirementState> {
    const room = await this.rooms.find(roomId);
    if (!room) throw roomNotFound(`Room ${roomId} is not a page room of this service.`);
    return roomState(room, room.state);
  }

  private async retireRoomRow(room: RoomRow): Promise<void> {
    // Of two concurrent requests the second is a 404 like any later one.
    if (!(await this.store.retireRoom(room))) throw roomNotFound(`Room ${room.roomId} is already retired.`);
    this.requested({ siteId: room.siteId, pageSlug: room.pageSlug });
  }

  private async requireSite(siteId: string, pageSlug?: string): Promise<{ status: string }> {
    checkPath(siteId, pageSlug);
    const site = await this.sites.status(siteId);
    if (!site) throw notFound("site-not-found", `Site ${siteId} is not registered.`);
    return site;
  }
}

const siteState = (siteId: string, state: string): RetirementState => ({
  targetType: "site",
  targetId: siteId,
  siteId,
  pageSlug: null,
  state,
});
const pageState = (siteId: string, pageSlug: string, state: string): RetirementState => ({
  targetType: "page",
  targetId: `${siteId}/${pageSlug}`,
  siteId,
  pageSlug,
  state,
});
const roomState = (room: RoomRow, state: string): RetirementState => ({
  targetType: "room",
  targetId: room.roomId,
  siteId: room.siteId,
  pageSlug: room.pageSlug,
  state,
});
const roomNotFound = (message: string) => notFound("room-not-found", message);
