// Domain reads of the projected comments (Comment rows, their maintained positions, counts and
// reaction summaries); the projection writes them (src/projection/). A list page is one statement
// on the driver, prepared once (src/db/driver-statements.ts), however deep the page is: the site,
// the page's count, its room's power levels and pinned events (the moderation feature derives
// closed and pinned from them), and the comments at the page's positions with their authors'
// current room profiles and, for a viewer, the viewer's reaction keys.
import type { Db } from "../../db/client.ts";
import { driverStatements } from "../../db/client.ts";
import type { Comment } from "../../db/client.ts";
import type { Membership } from "../../projection/member-store.ts";
import { asBigInt, asDate, type DriverStatements } from "../../db/driver-statements.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

export interface PageKey {
  siteId: string;
  pageSlug: string;
}

/** The columns of a Comment a Message shows (src/features/comments/graphql.ts): all but when the row was made, when it was deleted and the "top" order's key. */
export type MessageRow = Omit<Comment, "createdAt" | "redactedAt" | "reactionCount">;

/** A Comment row as the drivers return it, with its author's RoomMember columns (null: no row). */
type ListedRow = Omit<MessageRow, "siteId" | "pageSlug" | "originServerTs" | "editedAt"> & {
  pageCount: number | null;
  roomPowerLevels: string | null;
  roomPinnedEvents: string | null;
  originServerTs: number | string;
  editedAt: string | Date | null;
  memberMembership: string | null;
  memberDisplayName: string | null;
  memberAvatarUrl: string | null;
  /** The viewer's reaction keys on the comment, joined by VIEWER_KEYS_SEPARATOR (a viewer's read; null: none). */
  viewerKeys?: string | null;
};

/** The projected content (JSON) of a page room's power levels and pinned events (null: none projected, or no room). */
export interface PageRoomContents {
  powerLevels: string | null;
  pinnedEvents: string | null;
}

/**
 * A comment of a page, with its author's current profile in the room (`member`, null: never a
 * member) and, on a viewer's read, the keys the viewer reacted with (null: an anonymous read).
 */
export interface ListedComment extends MessageRow {
  member: Membership | null;
  viewerKeys: string[] | null;
}

/**
 * Joins a viewer's keys in one text column (string_agg: PostgreSQL, and SQLite since 3.44). A
 * visitor's reaction keys come through the API, which refuses control characters in them.
 */
const VIEWER_KEYS_SEPARATOR = "\u001f";

// Not the site and page (the statement selects by them: the rows take them from the key), nor
// createdAt and reactionCount (no Message field reads them).
const COMMENT_COLUMNS = [
  "eventId",
  "roomId",
  "sender",
  "submissionId",
  "authorType",
  "authorPublicKey",
  "displayName",
  "avatarUrl",
  "status",
  "content",
  "replyTo",
  "threadRoot",
  "originServerTs",
  "editedAt",
  "reactionSummary",
]
  .map((column) => `c."${column}"`)
  .join(", ");
/** The author's current profile in the room, joined as `m`. */
const MEMBER_COLUMNS = `m."membership" AS "memberMembership", m."displayName" AS "memberDisplayName", m."avatarUrl" AS "memberAvatarUrl"`;

/** A list's order: chronological (its maintained positions), or "top" (the most reactions first). */
export type CommentOrder = "asc" | "desc" | "top";

/**
 * A state event's content in the page's newest active room (its power levels say whether the page
 * is closed, its pinned events what is pinned): a subquery that names no row of the outer
 * statement, so both databases evaluate it once per statement, not once per comment.
 */
const roomState = (type: string) =>
  `SELECT "content" FROM "RoomState" WHERE "roomId" = (SELECT "roomId" FROM "Room" WHERE "siteId" = $1 AND "pageSlug" = $2 AND "state" = 'active' ORDER BY "createdAt" DESC LIMIT 1) AND "type" = '${type}' AND "stateKey" = ''`;

/**
 * A page's count (null: no comment yet): its last position, as positions run 1..count without a
 * gap. It is the last entry of the page in the positions index, which the range's keys are read
 * from too: on a page of a few comments the same leaf, where the count's own row
 * (PageCommentCount, the writers' lock) would be one more B-tree to read. A subquery that names no
 * row of the outer statement, evaluated once per statement where it appears, from the index's end
 * (both databases' min/max shortcut).
 */
const PAGE_COUNT = `(SELECT MAX("position") FROM "CommentPosition" WHERE "siteId" = $1 AND "pageSlug" = $2)`;

/**
 * The site (no row: not registered), its page's count (null: no comment yet), and the comments of
 * ranks $3..$4 in list order (none: a row without a comment). Rank r is position r ascending and
 * position count - r + 1 descending (positions: src/projection/position-store.ts). The positions
 * index gives the range's first and last comments' keys; the comments are then read as one range
 * of the Comment index on (siteId, pageSlug, originServerTs), in list order: a page's comments lie
 * together there, where a lookup by event id (a hash) would read a page of the id index for each.
 * "top" reads the page's comments by (reactionCount desc, originServerTs, eventId) through their
 * index, skipping $3 - 1 of them: its ranks move as reactions come, so it has no maintained
 * positions. A viewer's read adds the keys the viewer ($5) reacted with on each comment, in one
 * column: a comment is one row however many keys its viewer used.
 */
const pageSql = (order: CommentOrder, viewer: boolean) => {
  const viewerKeys = viewer
    ? `, (SELECT string_agg(r."key", '${VIEWER_KEYS_SEPARATOR}') FROM "Reaction" r WHERE r."targetEventId" = c."eventId" AND r."sender" = $5) AS "viewerKeys"`
    : "";
  // The range's first and last positions: ranks $3 and $4 (past the count: the last position).
  const last = `CASE WHEN ${PAGE_COUNT} < $4 THEN ${PAGE_COUNT} ELSE $4 END`;
  const [low, high] = order === "asc" ? ["$3", last] : [`${PAGE_COUNT} - (${last}) + 1`, `${PAGE_COUNT} - $3 + 1`];
  const key = (t: string) => `(${t}."originServerTs", ${t}."eventId")`;
  const comments =
    order === "top"
      ? `LEFT JOIN (SELECT * FROM "Comment" WHERE "siteId" = $1 AND "pageSlug" = $2 ORDER BY "reactionCount" DESC, "originServerTs", "eventId" LIMIT CAST($4 AS INTEGER) - CAST($3 AS INTEGER) + 1 OFFSET CAST($3 AS INTEGER) - 1) c ON TRUE`
      : `LEFT JOIN "CommentPosition" lo ON lo."siteId" = s."id" AND lo."pageSlug" = $2 AND lo."position" = ${low}
  LEFT JOIN "CommentPosition" hi ON hi."siteId" = s."id" AND hi."pageSlug" = $2 AND hi."position" = ${high}
  LEFT JOIN "Comment" c ON c."siteId" = s."id" AND c."pageSlug" = $2 AND c."originServerTs" >= lo."originServerTs" AND c."originServerTs" <= hi."originServerTs" AND ${key("c")} >= ${key("lo")} AND ${key("c")} <= ${key("hi")}`;
  const direction = order === "asc" ? "ASC" : "DESC";
  const orderBy =
    order === "top"
      ? `c."reactionCount" DESC, c."originServerTs", c."eventId"`
      : `c."originServerTs" ${direction}, c."eventId" ${direction}`;
  return `SELECT ${PAGE_COUNT} AS "pageCount", (${roomState(EventType.PowerLevels)}) AS "roomPowerLevels", (${roomState(EventType.PinnedEvents)}) AS "roomPinnedEvents", ${COMMENT_COLUMNS}, ${MEMBER_COLUMNS}${viewerKeys}
  FROM "Site" s
  ${comments}
  LEFT JOIN "RoomMember" m ON m."roomId" = c."roomId" AND m."userId" = c."sender"
  WHERE s."id" = $1 ORDER BY ${orderBy}`;
};
const ORDERS = ["asc", "desc", "top"] as const;
const PAGE = Object.fromEntries(ORDERS.map((o) => [o, pageSql(o, false)])) as Record<CommentOrder, string>;
const VIEWER_PAGE = Object.fromEntries(ORDERS.map((o) => [o, pageSql(o, true)])) as Record<CommentOrder, string>;

/** The anonymous list read's statement of an order (its parameters: site, page, first rank, last rank), for its plans (the benchmark's scale section). */
export const pageStatement = (order: CommentOrder): string => PAGE[order];

/** Some comments of a page by event id, deleted ones left out, with their authors' profiles (one statement per number of ids, its text made once). */
const pageCommentsSqlByArity: string[] = [];
const pageCommentsSql = (n: number) =>
  (pageCommentsSqlByArity[n] ??= `SELECT ${COMMENT_COLUMNS}, ${MEMBER_COLUMNS}
  FROM "Comment" c LEFT JOIN "RoomMember" m ON m."roomId" = c."roomId" AND m."userId" = c."sender"
  WHERE c."siteId" = $1 AND c."pageSlug" = $2 AND c."status" <> 'redacted' AND c."eventId" IN (${Array.from({ length: n }, (_, i) => `$${i + 3}`).join(", ")})`);

/** A viewer's reactions in force on some comments (one statement per number of comments, its text made once). */
const viewerReactionsSqlByArity: string[] = [];
const viewerReactionsSql = (n: number) =>
  (viewerReactionsSqlByArity[n] ??=
    `SELECT "targetEventId", "key" FROM "Reaction" WHERE "sender" = $1 AND "targetEventId" IN (${Array.from({ length: n }, (_, i) => `$${i + 2}`).join(", ")})`);

/**
 * The site (no row: not registered) and, per page of $2.. that has any, its comments still standing
 * (deleted ones leave the count) and the newest one's time; a site without any is one row with a
 * null page. One statement per number of pages, its text made once.
 */
const pageCountsSqlByArity: string[] = [];
const pageCountsSql = (n: number) =>
  (pageCountsSqlByArity[n] ??=
    `SELECT c."pageSlug" AS "pageSlug", COUNT(c."eventId") AS "count", MAX(c."originServerTs") AS "last"
  FROM "Site" s LEFT JOIN "Comment" c ON c."siteId" = s."id" AND c."status" <> 'redacted' AND c."pageSlug" IN (${Array.from({ length: n }, (_, i) => `$${i + 2}`).join(", ")})
  WHERE s."id" = $1 GROUP BY c."pageSlug"`);

/** A page's standing comments: how many, and when the newest was written (null: none). */
export interface PageCount {
  pageSlug: string;
  commentCount: number;
  lastCommentAt: Date | null;
}

// Field by field: an object rest/spread copies through a slow generic path, once per listed row.
function toListed(page: PageKey, row: ListedRow, viewerKeys: string[] | null): ListedComment {
  return {
    eventId: row.eventId,
    roomId: row.roomId,
    siteId: page.siteId,
    pageSlug: page.pageSlug,
    sender: row.sender,
    submissionId: row.submissionId,
    authorType: row.authorType,
    authorPublicKey: row.authorPublicKey,
    displayName: row.displayName,
    avatarUrl: row.avatarUrl,
    status: row.status,
    content: row.content,
    replyTo: row.replyTo,
    threadRoot: row.threadRoot,
    originServerTs: asBigInt(row.originServerTs),
    editedAt: asDate(row.editedAt),
    reactionSummary: row.reactionSummary,
    member:
      row.memberMembership === null
        ? null
        : { membership: row.memberMembership, displayName: row.memberDisplayName, avatarUrl: row.memberAvatarUrl },
    viewerKeys,
  };
}

export class CommentReadStore {
  constructor(private readonly db: Db) {}

  private get reads(): DriverStatements {
    return driverStatements(this.db);
  }

  /**
   * The page's count and the comments of ranks first..last in `order`, with the keys `viewer` (a
   * user id; null: an anonymous read) reacted with; null when the site is not registered.
   */
  async page(
    page: PageKey,
    first: number,
    last: number,
    order: CommentOrder,
    viewer: string | null,
  ): Promise<{ total: number; comments: ListedComment[]; roomState: PageRoomContents } | null> {
    const rows =
      viewer === null
        ? await this.reads.all<ListedRow>(PAGE[order], [page.siteId, page.pageSlug, first, last])
        : await this.reads.all<ListedRow>(VIEWER_PAGE[order], [page.siteId, page.pageSlug, first, last, viewer]);
    if (rows.length === 0) return null;
    const total = rows[0]!.pageCount ?? 0;
    const roomState = { powerLevels: rows[0]!.roomPowerLevels, pinnedEvents: rows[0]!.roomPinnedEvents };
    if (rows[0]!.eventId === null) return { total, comments: [], roomState };
    const viewerKeys = (row: ListedRow) =>
      viewer === null ? null : (row.viewerKeys?.split(VIEWER_KEYS_SEPARATOR) ?? []);
    return { total, comments: rows.map((row) => toListed(page, row, viewerKeys(row))), roomState };
  }

  /** The page's comments `eventIds` (distinct) that stand (deleted ones left out), in no order. */
  async pageComments(page: PageKey, eventIds: string[]): Promise<ListedComment[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.reads.all<ListedRow>(pageCommentsSql(eventIds.length), [
      page.siteId,
      page.pageSlug,
      ...eventIds,
    ]);
    return rows.map((row) => toListed(page, row, null));
  }

  /** The reactions `sender` has in force on the comments `eventIds`. */
  viewerReactions(sender: string, eventIds: string[]): Promise<Array<{ targetEventId: string; key: string }>> {
    return this.reads.all(viewerReactionsSql(eventIds.length), [sender, ...eventIds]);
  }

  /** Each of `pages` (distinct) with its count, in no particular order; null when the site is not registered. */
  async pageCounts(siteId: string, pages: string[]): Promise<Map<string, PageCount> | null> {
    const rows = await this.reads.all<{
      pageSlug: string | null;
      count: number | string;
      last: number | string | null;
    }>(pageCountsSql(pages.length), [siteId, ...pages]);
    if (rows.length === 0) return null;
    const counts = new Map<string, PageCount>();
    for (const row of rows) {
      if (row.pageSlug === null) continue;
      counts.set(row.pageSlug, {
        pageSlug: row.pageSlug,
        commentCount: Number(row.count),
        lastCommentAt: row.last === null ? null : new Date(Number(row.last)),
      });
    }
    return counts;
  }

  find(eventId: string): Promise<Comment | null> {
    return this.db.comment.findUnique({ where: { eventId } });
  }
}
