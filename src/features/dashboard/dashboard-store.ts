// The dashboard's reads of a site: its pages with their counts and last activity, its comments
// newest first, a comment's thread, daily counts. Keyset pagination throughout: a page of a list
// is read after the last row's sort key, however deep it is.
import { type Db, Prisma } from "../../db/client.ts";
import type { MessageRow } from "../comments/comment-read-store.ts";
import type { CommentCursor, PageCursor, PageOrder } from "./cursors.ts";

export interface PageRow {
  slug: string;
  commentCount: number;
  /** origin_server_ts of its newest comment (ms); 0: none. */
  lastActivity: number;
}

export interface CommentFilter {
  pageSlug: string | null;
  /** A Matrix user id (the sender) or a visitor's public key. */
  author: string | null;
  kind: "visitor" | "matrix" | null;
  status: "published" | "edited" | "redacted" | null;
  /** Text the comment's content contains. */
  search: string | null;
}

/** The columns Message reads (comments/graphql.ts), createdAt left out. */
const MESSAGE_COLUMNS = {
  eventId: true,
  roomId: true,
  siteId: true,
  pageSlug: true,
  sender: true,
  submissionId: true,
  authorType: true,
  authorPublicKey: true,
  displayName: true,
  avatarUrl: true,
  status: true,
  content: true,
  replyTo: true,
  threadRoot: true,
  originServerTs: true,
  editedAt: true,
  reactionSummary: true,
} as const;

/** LIKE pattern matching `text` anywhere, its wildcards escaped (with ESCAPE '\'). */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const ORDER_SQL: Record<PageOrder, { column: string; direction: "ASC" | "DESC" }> = {
  slug: { column: "slug", direction: "ASC" },
  lastActivity: { column: '"lastActivity"', direction: "DESC" },
  commentCount: { column: '"commentCount"', direction: "DESC" },
};

export class DashboardStore {
  constructor(private readonly db: Db) {}

  /**
   * Up to `take` of the site's pages (every page with a room or a comment) in `order` (slug
   * ascending; last activity or comment count descending, then slug), after `after`. The count
   * is of standing comments, as the public page counts have it (a deleted one leaves it).
   */
  async pages(siteId: string, order: PageOrder, search: string | null, after: PageCursor | null, take: number) {
    const { column, direction } = ORDER_SQL[order];
    // Timestamps pass the 32-bit range: compared as BigInt (a BIGINT column on PostgreSQL).
    const value = after === null ? null : typeof after.value === "number" ? BigInt(after.value) : after.value;
    const keyset =
      after === null
        ? Prisma.sql`TRUE`
        : order === "slug"
          ? Prisma.sql`slug > ${after.slug}`
          : Prisma.sql`(${Prisma.raw(column)} < ${value} OR (${Prisma.raw(column)} = ${value} AND slug > ${after.slug}))`;
    const rows = await this.db.$queryRaw<Array<{ slug: string; commentCount: unknown; lastActivity: unknown }>>`
      SELECT slug, "commentCount", "lastActivity" FROM (
        SELECT p.slug,
          (SELECT COUNT(*) FROM "Comment" c WHERE c."siteId" = ${siteId} AND c."pageSlug" = p.slug AND c."status" <> 'redacted') AS "commentCount",
          COALESCE((SELECT MAX(m."originServerTs") FROM "Comment" m WHERE m."siteId" = ${siteId} AND m."pageSlug" = p.slug), 0) AS "lastActivity"
        FROM (
          SELECT "pageSlug" AS slug FROM "Room" WHERE "siteId" = ${siteId}
          UNION SELECT "pageSlug" AS slug FROM "PageCommentCount" WHERE "siteId" = ${siteId}
        ) p
        WHERE p.slug LIKE ${containsPattern(search ?? "")} ESCAPE '\\'
      ) pages
      WHERE ${keyset}
      ORDER BY ${Prisma.raw(`${column} ${direction}`)}, slug ASC
      LIMIT ${take}`;
    return rows.map((r) => ({
      slug: r.slug,
      commentCount: Number(r.commentCount),
      lastActivity: Number(r.lastActivity),
    }));
  }

  /** The state of each page's current room: active, else quarantined, else retiring; pages without one are absent. */
  async roomStates(siteId: string, slugs: string[]): Promise<Map<string, { roomId: string; state: string }>> {
    const rooms = await this.db.room.findMany({
      where: { siteId, pageSlug: { in: slugs }, state: { in: ["active", "quarantined", "retiring"] } },
      select: { roomId: true, pageSlug: true, state: true },
    });
    const rank = (state: string) => ["active", "quarantined", "retiring"].indexOf(state);
    const byPage = new Map<string, { roomId: string; state: string }>();
    for (const room of rooms) {
      const known = byPage.get(room.pageSlug);
      if (!known || rank(room.state) < rank(known.state)) byPage.set(room.pageSlug, room);
    }
    return byPage;
  }

  /**
   * Up to `take` of the site's comments matching `filter`, newest first, after `after`. The ids
   * are selected in SQL of our own (a search text is matched literally: LIKE with its wildcards
   * escaped, which Prisma's `contains` does not do), then their rows read.
   */
  async comments(
    siteId: string,
    filter: CommentFilter,
    after: CommentCursor | null,
    take: number,
  ): Promise<MessageRow[]> {
    const conditions = [Prisma.sql`"siteId" = ${siteId}`];
    if (filter.pageSlug !== null) conditions.push(Prisma.sql`"pageSlug" = ${filter.pageSlug}`);
    if (filter.kind !== null) conditions.push(Prisma.sql`"authorType" = ${filter.kind}`);
    if (filter.status !== null) conditions.push(Prisma.sql`"status" = ${filter.status}`);
    if (filter.author !== null)
      conditions.push(Prisma.sql`("sender" = ${filter.author} OR "authorPublicKey" = ${filter.author})`);
    if (filter.search !== null)
      conditions.push(Prisma.sql`"content" LIKE ${containsPattern(filter.search)} ESCAPE '\\'`);
    if (after !== null) {
      const ts = BigInt(after.ts);
      conditions.push(
        Prisma.sql`("originServerTs" < ${ts} OR ("originServerTs" = ${ts} AND "eventId" < ${after.eventId}))`,
      );
    }
    const ids = await this.db.$queryRaw<Array<{ eventId: string }>>`
      SELECT "eventId" FROM "Comment" WHERE ${Prisma.join(conditions, " AND ")}
      ORDER BY "originServerTs" DESC, "eventId" DESC LIMIT ${take}`;
    const rows = await this.db.comment.findMany({
      where: { eventId: { in: ids.map((r) => r.eventId) } },
      select: MESSAGE_COLUMNS,
    });
    const byId = new Map(rows.map((r) => [r.eventId, r]));
    return ids.flatMap((r) => byId.get(r.eventId) ?? []);
  }

  /** A comment of the site. */
  comment(siteId: string, eventId: string): Promise<MessageRow | null> {
    return this.db.comment.findFirst({ where: { siteId, eventId }, select: MESSAGE_COLUMNS });
  }

  /** The thread rooted at `rootEventId` (the root and every comment in it), oldest first, up to `take`. */
  thread(siteId: string, rootEventId: string, take: number): Promise<MessageRow[]> {
    return this.db.comment.findMany({
      where: { siteId, OR: [{ eventId: rootEventId }, { threadRoot: rootEventId }] },
      orderBy: [{ originServerTs: "asc" }, { eventId: "asc" }],
      take,
      select: MESSAGE_COLUMNS,
    });
  }

  /** Per UTC day (days since the epoch) from `sinceMs` on: comments created and their distinct authors. */
  async dailyCounts(
    siteId: string,
    sinceMs: number,
  ): Promise<Array<{ day: number; comments: number; authors: number }>> {
    const rows = await this.db.$queryRaw<Array<{ day: unknown; comments: unknown; authors: unknown }>>`
      SELECT ("originServerTs" / 86400000) AS day, COUNT(*) AS comments, COUNT(DISTINCT sender) AS authors
      FROM "Comment" WHERE "siteId" = ${siteId} AND "originServerTs" >= ${BigInt(sinceMs)}
      GROUP BY ("originServerTs" / 86400000)`;
    return rows.map((r) => ({ day: Number(r.day), comments: Number(r.comments), authors: Number(r.authors) }));
  }

  /** Every registered site's id (the operator governs them all). */
  async siteIds(): Promise<string[]> {
    return (await this.db.site.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((s) => s.id);
  }
}
