// The background retirement pass: works through the Retirement rows, doing in Matrix what a
// retirement means (rooms renamed "[retired] …", aliases removed, the service's users leave),
// then clearing the local rows, which frees the site id or page slug for a fresh start.
// Every step is idempotent and the bot leaves each room last, so a pass cut short (a crash, a
// homeserver failure) is simply run again; a failure is recorded on the row and retried with
// backoff. Instances sharing a database may run it at the same time: the steps tolerate that.
import { PASS_INTERVALS_MS } from "../../config/limits.ts";
import type { PageChange } from "../../cluster/signals.ts";
import type { Db } from "../../db/client.ts";
import type { Retirement } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { hasErrcode } from "../../matrix/errors.ts";
import { MAX_RETRY_DELAY_MS } from "../../queue/backoff.ts";
import { PeriodicPass } from "../../cluster/periodic-pass.ts";
import { RoomStore } from "../rooms/room-store.ts";
import { SiteStore } from "../sites/site-store.ts";
import { RetirementStore } from "./retirement-store.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

/**
 * Transactions trail the requests that caused them: local rows are cleared once the bot's own
 * leave has come back and been applied (a transaction still being applied could fail against
 * the clearing and come back again), so no late event is stored for a room that no longer
 * exists. A homeserver that never delivers it does not hold the retirement up longer than this.
 */
const LEAVE_ECHO_WAIT_MS = 60_000;

interface MatrixRoom {
  roomId: string;
  name: string;
  alias: string;
  /** The Space to unlink a retired page's room from (a retired site's Space goes as a whole). */
  space: string | null;
}

export class RetirementPass {
  private readonly pass = new PeriodicPass(() => this.runAll());
  private readonly store: RetirementStore;
  private readonly sites: SiteStore;
  private readonly rooms: RoomStore;

  constructor(
    db: Db,
    private readonly hs: Homeserver,
    private readonly log: (message: string) => void,
    /** Called once a retirement's local rows are gone: caches drop the page (or site). */
    private readonly cleared: (change: PageChange) => void = () => {},
  ) {
    this.store = new RetirementStore(db);
    this.sites = new SiteStore(db);
    this.rooms = new RoomStore(db);
  }

  /** Runs the pass now (rows an earlier process left) and then every interval. */
  start(intervalMs = PASS_INTERVALS_MS.retirement): void {
    this.pass.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** Runs the pass soon, e.g. right after a request; a no-op where the pass is not started (an API-only instance). */
  kick(): void {
    this.pass.kick();
  }

  /** Works through every due row once. Never throws. */
  async runAll(now = new Date()): Promise<void> {
    try {
      const rows = await this.store.all();
      for (const row of rows) if (due(row, now)) await this.run(row);
    } catch (err) {
      this.log(`retirement: ${messageOf(err)}`);
    }
  }

  private async run(row: Retirement): Promise<void> {
    try {
      const rooms = await this.matrixRooms(row);
      for (const room of rooms) await this.leave(room);
      const echoed = await Promise.all(rooms.map((room) => this.leaveEchoed(room.roomId)));
      if (echoed.includes(false) && Date.now() - row.createdAt.getTime() < LEAVE_ECHO_WAIT_MS) return;
      await this.store.clear(
        row,
        rooms.map((room) => room.roomId),
      );
      this.cleared({ siteId: row.siteId, pageSlug: row.targetType === "page" ? row.pageSlug : null });
    } catch (err) {
      const message = messageOf(err);
      this.log(
        `retirement of ${row.targetType} ${row.pageSlug ? `${row.siteId}/${row.pageSlug}` : row.siteId} failed (attempt ${row.attempts + 1}): ${message}`,
      );
      await this.store.recordFailure(row.id, message);
    }
  }

  /** The rooms a row retires: a page's non-active rooms; a site's rooms, then its Space. */
  private async matrixRooms(row: Retirement): Promise<MatrixRoom[]> {
    const { names } = this.hs;
    const spaceRoomId = await this.sites.spaceRoomId(row.siteId);
    if (row.targetType === "page") {
      const rooms = await this.rooms.inactivePageRooms(row.siteId, row.pageSlug);
      const alias = names.alias(names.roomAliasLocalpart(row.siteId, row.pageSlug));
      return rooms.map((r) => ({
        roomId: r.roomId,
        name: `[retired] ${r.siteId}/${r.pageSlug}`,
        alias,
        space: spaceRoomId,
      }));
    }
    const rooms = await this.rooms.roomsOf(row.siteId);
    return [
      ...rooms.map((r) => ({
        roomId: r.roomId,
        name: `[retired] ${r.siteId}/${r.pageSlug}`,
        alias: names.alias(names.roomAliasLocalpart(r.siteId, r.pageSlug)),
        space: null,
      })),
      ...(spaceRoomId
        ? [
            {
              roomId: spaceRoomId,
              name: `[retired] ${row.siteId}`,
              alias: names.alias(names.spaceAliasLocalpart(row.siteId)),
              space: null,
            },
          ]
        : []),
    ];
  }

  /** The Matrix side of one room, in an order that makes "the bot is gone" mean "all done". */
  private async leave(room: MatrixRoom): Promise<void> {
    const { names } = this.hs;
    const members = await this.hs.joinedMembers(room.roomId).catch(orDone);
    if (members === DONE) return;
    // A name the bot may not set (its power taken in an older room version) is no reason to stop.
    await this.hs.setRoomName(room.roomId, room.name).catch(orDone);
    if (room.space) await this.hs.sendState(room.space, EventType.SpaceChild, room.roomId, {}).catch(orDone);
    await this.hs.deleteAlias(room.alias).catch(orDone);
    for (const userId of members)
      if (names.isVisitorUserId(userId)) await this.hs.leaveRoom(userId, room.roomId).catch(orDone);
    await this.hs.leaveRoom(names.botUserId, room.roomId).catch(orDone);
  }

  /** Whether the bot's leave of the room has been pushed and applied (or its membership never was pushed). */
  private async leaveEchoed(roomId: string): Promise<boolean> {
    const last = await this.rooms.lastMembershipEvent(roomId, this.hs.names.botUserId);
    return (
      !last ||
      (last.status !== "waiting" &&
        (JSON.parse(last.json) as { content?: { membership?: string } }).content?.membership !== "join")
    );
  }
}

const DONE = Symbol("done");

/**
 * A step already done answers M_NOT_FOUND (an alias gone) or M_FORBIDDEN (a room left, or
 * not visible any more once the bot left it).
 */
function orDone(err: unknown): typeof DONE {
  if (hasErrcode(err, "M_NOT_FOUND") || hasErrcode(err, "M_FORBIDDEN")) return DONE;
  throw err;
}

/** Retries back off from the pass interval, doubling per attempt. */
const due = (row: Retirement, now: Date): boolean =>
  row.attempts === 0 ||
  row.updatedAt.getTime() + Math.min(MAX_RETRY_DELAY_MS, PASS_INTERVALS_MS.retirement * 2 ** (row.attempts - 1)) <=
    now.getTime();

const messageOf = (err: unknown): string => {
  const e = err as { errcode?: string; error?: string; message?: string };
  return e?.errcode ? `${e.errcode} ${e.error ?? ""}`.trim() : (e?.message ?? String(err));
};
