// Quarantine: a page room the service cannot manage (the bot is not in it and cannot join, did
// not create it, or lacks the power to change its power levels) is recorded with the reason and
// set aside; the page is served from a fresh room. Adoption is retried automatically 1 h, 6 h
// and 24 h after the failures; after the fourth only the operator's reinstatement applies.
import type { Db } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { classifyMatrixError } from "../../matrix/errors.ts";
import { PeriodicPass } from "../../cluster/periodic-pass.ts";
import { checkPagination } from "../../core/pagination.ts";
import { DomainError, notFound } from "../../core/errors.ts";
import { QUARANTINE_RETRY_SCHEDULE_MS, PASS_INTERVALS_MS } from "../../config/limits.ts";
import { SiteStore } from "../sites/site-store.ts";
import { QuarantineStore, type QuarantineRow } from "./quarantine-store.ts";
import { RoomStore } from "./room-store.ts";
import { linkPageRoom } from "./room-links.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

/** When the next automatic adoption attempt runs after `failures` consecutive failures; null: manual. */
export const nextRetryAt = (now: Date, failures: number): Date | null => {
  const wait = QUARANTINE_RETRY_SCHEDULE_MS[failures - 1];
  return wait === undefined ? null : new Date(now.getTime() + wait);
};

/** Level needed to change a room's power levels (what managing roles takes). */
function powerLevelsLevel(levels: Record<string, unknown>): number {
  const events = typeof levels.events === "object" && levels.events !== null ? levels.events : {};
  return Number(Reflect.get(events, EventType.PowerLevels) ?? levels.state_default ?? 50);
}

/**
 * Why the service cannot manage the room, or null when it can. The bot joins first (a no-op
 * when joined). A transient homeserver failure throws: nothing is decided on it.
 */
export async function unmanageableReason(hs: Homeserver, roomId: string): Promise<string | null> {
  const bot = hs.names.botUserId;
  try {
    await hs.joinRoom(bot, roomId);
  } catch (err) {
    const failure = classifyMatrixError(err);
    if (failure.transient) throw err;
    return `the service's bot is not in the room and cannot join it (${failure.message})`;
  }
  const create = await hs.stateEvent(roomId, EventType.Create);
  if (!create) return "the room has no create event";
  if (create.sender !== bot) return `the room was created by ${create.sender}, not the service`;
  // Room v12 creators hold unlimited power and are not listed in power_levels.
  if (Number(create.content.room_version ?? "1") >= 12) return null;
  const levels = (await hs.stateContent(roomId, EventType.PowerLevels)) ?? {};
  const level = Number((levels.users as Record<string, unknown> | undefined)?.[bot] ?? levels.users_default ?? 0);
  return level >= powerLevelsLevel(levels)
    ? null
    : `the service's bot holds level ${level}, too low to change the power levels`;
}

export interface QuarantinedRoom {
  roomId: string;
  siteId: string;
  pageSlug: string;
  reason: string;
  firstQuarantinedAt: Date;
  failures: number;
  nextRetryAt: Date | null;
}

export class Quarantines {
  private readonly store: QuarantineStore;
  private readonly rooms: RoomStore;
  private readonly sites: SiteStore;
  private readonly pass = new PeriodicPass(() => this.retryDue());
  /** The pass's clock: tests move it. */
  clock: () => Date = () => new Date();

  constructor(
    db: Db,
    private readonly hs: Homeserver,
    private readonly log: (message: string) => void,
    /** The page's room changed (caches drop it). */
    private readonly changed: (siteId: string, pageSlug: string) => void,
  ) {
    this.store = new QuarantineStore(db);
    this.rooms = new RoomStore(db);
    this.sites = new SiteStore(db);
  }

  start(intervalMs = PASS_INTERVALS_MS.quarantine): void {
    this.pass.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** Sets a room aside: registered as quarantined (never the page's active room) with the reason, its retry scheduled. */
  async quarantine(
    roomId: string,
    siteId: string,
    pageSlug: string,
    roomVersion: string,
    reason: string,
  ): Promise<void> {
    await this.rooms.registerQuarantined(roomId, siteId, pageSlug, roomVersion);
    const row = await this.store.recordFailure(roomId, siteId, pageSlug, reason, (failures) =>
      nextRetryAt(this.clock(), failures),
    );
    this.log(`rooms: ${roomId} of ${siteId}/${pageSlug} quarantined (failure ${row.failures}): ${reason}`);
  }

  /** The room was adopted after all (a successful re-registration): its quarantine is over. */
  clear(roomId: string): Promise<void> {
    return this.store.clear(roomId);
  }

  /** One run of the automatic retries due now. Never throws. */
  async retryDue(): Promise<void> {
    try {
      for (const row of await this.store.due(this.clock())) await this.retry(row);
    } catch (err) {
      this.log(`rooms: quarantine retries: ${classifyMatrixError(err).message}`);
    }
  }

  private async retry(row: QuarantineRow): Promise<void> {
    const reason = await unmanageableReason(this.hs, row.roomId);
    if (reason !== null) {
      await this.store.recordRetryFailure(row.roomId, reason, (failures) => nextRetryAt(this.clock(), failures));
      return;
    }
    // Adopted: the page's room again when it has none, else kept (superseded) with its comments.
    if (await this.rooms.activeRoomId(row.siteId, row.pageSlug)) await this.rooms.supersede(row.roomId);
    else await this.makeActive(row.roomId, row.siteId, row.pageSlug);
    await this.store.clear(row.roomId);
    this.changed(row.siteId, row.pageSlug);
  }

  async list(
    page: number,
    perPage: number,
    siteId: string | null,
  ): Promise<{ data: QuarantinedRoom[]; meta: { total: number; page: number; perPage: number; totalPages: number } }> {
    checkPagination(page, perPage);
    const { rows, total } = await this.store.list(page, perPage, siteId);
    return { data: rows, meta: { total, page, perPage, totalPages: Math.ceil(total / perPage) } };
  }

  /**
   * The operator's reinstatement: the room becomes the page's active room (any other active
   * room of the page is superseded) and its quarantine ends. An active room is left as it is.
   */
  async reinstate(roomId: string): Promise<void> {
    const room = await this.rooms.find(roomId);
    if (!room) throw notFound("room-not-found", `Room ${roomId} is not a page room of this service.`);
    if (room.state === "active") return;
    if (room.state !== "quarantined")
      throw new DomainError("room-not-quarantined", 409, `Room ${roomId} is ${room.state}, not quarantined.`);
    await this.makeActive(roomId, room.siteId, room.pageSlug);
    await this.store.clear(roomId);
    this.changed(room.siteId, room.pageSlug);
  }

  private async makeActive(roomId: string, siteId: string, pageSlug: string): Promise<void> {
    const replaced = await this.rooms.activeRoomId(siteId, pageSlug);
    const room = await this.rooms.find(roomId);
    await this.rooms.activate(roomId, siteId, pageSlug, room?.roomVersion ?? "1");
    // The alias and the Space follow where the homeserver lets the bot; the operator decided.
    const spaceId = await this.sites.spaceRoomId(siteId);
    if (spaceId) {
      await linkPageRoom(this.hs, spaceId, siteId, pageSlug, roomId, replaced).catch((err) =>
        this.log(`rooms: reinstated ${roomId} not fully linked in Matrix: ${classifyMatrixError(err).message}`),
      );
    }
  }
}
