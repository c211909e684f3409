// The moderation feature's rows: site bans (SiteBan), hold settings (ModerationSetting), held
// submissions (Submission rows in status "held"), and the projected room state a page's
// moderation reads (its power levels and pinned events, RoomState).
import { driverStatements, type Db, type Tx } from "../../db/client.ts";
import { asDate } from "../../db/driver-statements.ts";
import type { SiteBan, Submission } from "../../db/client.ts";
import type { HoldMode, HoldSetting } from "./hold-rules.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";
import { roomModeration } from "./page-closure.ts";

/** The page's newest active room, with its power levels ($3) and pinned events ($4) as projected (a row each; one row of nulls when neither is). */
const PAGE_ROOM_STATE_SQL = `SELECT r."roomId" AS "roomId", s."type" AS "type", s."content" AS "content"
  FROM (SELECT "roomId" FROM "Room" WHERE "siteId" = $1 AND "pageSlug" = $2 AND "state" = 'active' ORDER BY "createdAt" DESC LIMIT 1) r
  LEFT JOIN "RoomState" s ON s."roomId" = r."roomId" AND s."stateKey" = '' AND s."type" IN ($3, $4)`;

/** A place in a keyset connection: the last row's (createdAt, id). */
export interface Keyset {
  createdAt: Date;
  id: string;
}

/** A held (or reviewed) submission as the moderation reads show it; lastError says why one failed. */
export type HeldSubmission = Pick<
  Submission,
  | "id"
  | "kind"
  | "siteId"
  | "pageSlug"
  | "authorPublicKey"
  | "payload"
  | "status"
  | "heldReason"
  | "reviewedBy"
  | "lastError"
  | "createdAt"
  | "updatedAt"
>;

const HELD_COLUMNS = {
  id: true,
  kind: true,
  siteId: true,
  pageSlug: true,
  authorPublicKey: true,
  payload: true,
  status: true,
  heldReason: true,
  reviewedBy: true,
  lastError: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** The submission kinds that make a new comment: the ones a hold applies to, and an author's pending read shows. */
export const NEW_COMMENT_KINDS = ["comment.post", "poll.create", "location.post"] as const;

/**
 * An author's submissions on a page that are not in Matrix and will not be unless reviewed:
 * held, rejected, and new comments the homeserver refused (failed); oldest first, the first $4.
 */
const PENDING_SQL = `SELECT ${Object.keys(HELD_COLUMNS)
  .map((column) => `"${column}"`)
  .join(", ")} FROM "Submission"
  WHERE "siteId" = $1 AND "pageSlug" = $2 AND "authorPublicKey" = $3
    AND ("status" IN ('held', 'rejected') OR ("status" = 'failed' AND "kind" IN (${NEW_COMMENT_KINDS.map((k) => `'${k}'`).join(", ")})))
  ORDER BY "createdAt", "id" LIMIT CAST($4 AS INTEGER)`;

/** What a page's rooms say about its moderation (the projected state of its active room). */
export interface PageRoomState {
  roomId: string;
  /** m.room.power_levels content, {} when none is projected. */
  powerLevels: Record<string, unknown>;
  /** m.room.pinned_events `pinned`, in its order. */
  pinned: string[];
}

const after = (cursor: Keyset | null) =>
  cursor
    ? { OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { gt: cursor.id } }] }
    : {};

export class ModerationStore {
  constructor(private readonly db: Db) {}

  // Hold settings.

  /** The site's setting (pageSlug "") and, with a page, the page's. */
  async settings(
    siteId: string,
    pageSlug: string | null,
  ): Promise<{ site: HoldSetting | null; page: HoldSetting | null }> {
    const rows = await this.db.moderationSetting.findMany({
      where: { siteId, pageSlug: { in: pageSlug === null ? [""] : ["", pageSlug] } },
    });
    const setting = (slug: string): HoldSetting | null => {
      const row = rows.find((r) => r.pageSlug === slug);
      return row ? { mode: row.mode as HoldMode, words: JSON.parse(row.words) as string[] } : null;
    };
    return { site: setting(""), page: pageSlug === null ? null : setting(pageSlug) };
  }

  /** Sets a site's (pageSlug "") or page's setting; null removes it (the next one out applies). */
  async setSetting(siteId: string, pageSlug: string, setting: HoldSetting | null): Promise<void> {
    if (setting === null) {
      await this.db.moderationSetting.deleteMany({ where: { siteId, pageSlug } });
      return;
    }
    const data = { mode: setting.mode, words: JSON.stringify(setting.words) };
    await this.db.moderationSetting.upsert({
      where: { siteId_pageSlug: { siteId, pageSlug } },
      create: { siteId, pageSlug, ...data },
      update: data,
    });
  }

  /** True when the visitor has a comment on the site (projected, in any state). */
  async hasCommented(siteId: string, authorPublicKey: string): Promise<boolean> {
    return (
      (await this.db.comment.findFirst({ where: { siteId, authorPublicKey }, select: { eventId: true } })) !== null
    );
  }

  // Bans.

  ban(siteId: string, userId: string): Promise<SiteBan | null> {
    return this.db.siteBan.findUnique({ where: { siteId_userId: { siteId, userId } } });
  }

  /** Records a ban (a new one replaces the reason, author and end of an earlier one). */
  async putBan(ban: Omit<SiteBan, "createdAt">): Promise<SiteBan> {
    const { siteId, userId, ...rest } = ban;
    return this.db.siteBan.upsert({
      where: { siteId_userId: { siteId, userId } },
      create: ban,
      update: { ...rest, createdAt: new Date() },
    });
  }

  /** Deletes a ban; false when there was none. With `expiredBy`, only a timed ban ended by then. */
  async deleteBan(siteId: string, userId: string, expiredBy?: Date): Promise<boolean> {
    const { count } = await this.db.siteBan.deleteMany({
      where: { siteId, userId, ...(expiredBy ? { expiresAt: { lte: expiredBy } } : {}) },
    });
    return count > 0;
  }

  /** A site's bans in force at `now`, oldest first, after `cursor`. */
  bans(
    siteId: string,
    now: Date,
    cursor: { createdAt: Date; userId: string } | null,
    take: number,
  ): Promise<SiteBan[]> {
    return this.db.siteBan.findMany({
      where: {
        siteId,
        OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
        ...(cursor
          ? {
              AND: [
                {
                  OR: [
                    { createdAt: { gt: cursor.createdAt } },
                    { createdAt: cursor.createdAt, userId: { gt: cursor.userId } },
                  ],
                },
              ],
            }
          : {}),
      },
      orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
      take,
    });
  }

  /** Timed bans ended by `now` (what the ban expiry pass lifts). */
  expiredBans(now: Date, take: number): Promise<SiteBan[]> {
    return this.db.siteBan.findMany({ where: { expiresAt: { lte: now } }, orderBy: { expiresAt: "asc" }, take });
  }

  /** The virtual user of a visitor key on a site, if the service registered one. */
  async visitorKeyOf(userId: string): Promise<string | null> {
    return (
      (await this.db.virtualUser.findUnique({ where: { userId }, select: { publicKey: true } }))?.publicKey ?? null
    );
  }

  // Held submissions.

  /** A site's held submissions (optionally of one page), oldest first, after `cursor`. */
  held(siteId: string, pageSlug: string | null, cursor: Keyset | null, take: number): Promise<HeldSubmission[]> {
    return this.db.submission.findMany({
      where: { siteId, status: "held", ...(pageSlug === null ? {} : { pageSlug }), ...after(cursor) },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take,
      select: HELD_COLUMNS,
    });
  }

  submission(id: string): Promise<HeldSubmission | null> {
    return this.db.submission.findUnique({ where: { id }, select: HELD_COLUMNS });
  }

  /**
   * Moves a held submission on: approved to the queue ("queued": the worker sends it as any
   * other), or "rejected". Conditional on it being held still, so of two reviews (on two
   * instances, or twice) one wins; false for the other.
   */
  async review(
    id: string,
    to: "queued" | "rejected",
    reviewedBy: string,
    /** What else the review writes, in its transaction (when it wins). */
    alongside: (tx: Tx) => Promise<void>,
  ): Promise<boolean> {
    const now = new Date();
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.submission.updateMany({
        where: { id, status: "held" },
        data: {
          status: to,
          reviewedBy,
          ...(to === "queued" ? { nextAttemptAt: now } : { completedAt: now }),
        },
      });
      if (count > 0) await alongside(tx);
      return count > 0;
    });
  }

  /** A visitor's held, rejected and failed comments on a page, oldest first (their personalized read). */
  async pendingOf(siteId: string, pageSlug: string, authorPublicKey: string, take: number): Promise<HeldSubmission[]> {
    // On every personalized list read: a driver statement, not a Prisma query.
    const rows = await driverStatements(this.db).all<
      Omit<HeldSubmission, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string }
    >(PENDING_SQL, [siteId, pageSlug, authorPublicKey, take]);
    return rows.map((row) => ({ ...row, createdAt: asDate(row.createdAt)!, updatedAt: asDate(row.updatedAt)! }));
  }

  /** Deletes the rejected submissions reviewed before `before` (their authors have had time to see). */
  async pruneRejected(before: Date): Promise<void> {
    await this.db.submission.deleteMany({ where: { status: "rejected", completedAt: { lt: before } } });
  }

  // Rooms and their projected state.

  /** The site's Space and active page rooms. */
  async siteRooms(siteId: string): Promise<{ spaceRoomId: string | null; pageRooms: string[] }> {
    const [site, rooms] = await Promise.all([
      this.db.site.findUnique({ where: { id: siteId }, select: { spaceRoomId: true } }),
      this.db.room.findMany({ where: { siteId, state: "active" }, select: { roomId: true } }),
    ]);
    return { spaceRoomId: site?.spaceRoomId ?? null, pageRooms: rooms.map((r) => r.roomId) };
  }

  /**
   * The page's active room and its projected moderation state; null when the page has no room
   * yet (a comment list read has it from its own statement).
   */
  async pageRoom(siteId: string, pageSlug: string): Promise<PageRoomState | null> {
    const rows = await driverStatements(this.db).all<{ roomId: string; type: string | null; content: string | null }>(
      PAGE_ROOM_STATE_SQL,
      [siteId, pageSlug, EventType.PowerLevels, EventType.PinnedEvents],
    );
    if (rows.length === 0) return null;
    const content = (type: string) => rows.find((s) => s.type === type)?.content ?? null;
    return {
      roomId: rows[0]!.roomId,
      ...roomModeration({ powerLevels: content(EventType.PowerLevels), pinnedEvents: content(EventType.PinnedEvents) }),
    };
  }

  comment(eventId: string) {
    return this.db.comment.findUnique({ where: { eventId } });
  }
}
