// Domain reads of the projected comments (Comment rows, their maintained positions, counts and
// reaction summaries); the projection writes them (src/projection/). A list page is one statement
// on the driver, prepared once (src/db/driver-statements.ts), however deep the page is: the site,
// the page's count, and the comments at the page's positions with their authors' current room
// profiles and, for a viewer, the viewer's reaction keys.
import type { Db } from "../../db/client.ts";
import { driverStatements } from "../../db/client.ts";
import type { Comment } from "../../db/client.ts";
import type { Membership } from "../../projection/member-store.ts";
import { asBigInt, asDate, type DriverStatements } from "../../db/driver-statements.ts";

export interface PageKey {
  siteId: string;
  pageSlug: string;
}

/** The columns of a Comment a Message shows (src/features/comments/graphql.ts): all but when the row was made. */
export type MessageRow = Omit<Comment, "createdAt">;

/** A Comment row as the drivers return it, with its author's RoomMember columns (null: no row). */
type ListedRow = Omit<MessageRow, "siteId" | "pageSlug" | "originServerTs" | "editedAt"> & {
  pageCount: number | null;
  originServerTs: number | string;
  editedAt: string | Date | null;
  memberMembership: string | null;
  memberDisplayName: string | null;
  memberAvatarUrl: string | null;
  /** The viewer's reaction keys on the comment, joined by VIEWER_KEYS_SEPARATOR (a viewer's read; null: none). */
  viewerKeys?: string | null;
};

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
// createdAt (no Message field reads it).
const COMMENT_COLUMNS = ["eventId", "roomId", "sender", "submissionId", "authorType", "authorPublicKey", "displayName", "avatarUrl", "status", "content", "replyTo", "threadRoot", "originServerTs", "editedAt", "reactionSummary"]
  .map((column) => `c."${column}"`)
  .join(", ");

/**
 * The site (no row: not registered), its page's count (null: no comment yet), and the comments of
 * ranks $3..$4 in list order (none: a row without a comment). Rank r is position r ascending and
 * position count - r + 1 descending (positions: src/projection/position-store.ts). A viewer's
 * read adds the keys the viewer ($5) reacted with on each comment, in one column: a comment is one
 * row however many keys its viewer used.
 */
const pageSql = (order: "asc" | "desc", viewer: boolean) => {
  const [from, to] = order === "asc" ? ["$3", "$4"] : [`n."count" - $4 + 1`, `n."count" - $3 + 1`];
  const viewerKeys = viewer ? `, (SELECT string_agg(r."key", '${VIEWER_KEYS_SEPARATOR}') FROM "Reaction" r WHERE r."targetEventId" = c."eventId" AND r."sender" = $5) AS "viewerKeys"` : "";
  return `SELECT n."count" AS "pageCount", ${COMMENT_COLUMNS}, m."membership" AS "memberMembership", m."displayName" AS "memberDisplayName", m."avatarUrl" AS "memberAvatarUrl"${viewerKeys}
  FROM "Site" s LEFT JOIN "PageCommentCount" n ON n."siteId" = s."id" AND n."pageSlug" = $2
  LEFT JOIN "CommentPosition" p ON p."siteId" = s."id" AND p."pageSlug" = $2 AND p."position" >= ${from} AND p."position" <= ${to}
  LEFT JOIN "Comment" c ON c."eventId" = p."eventId" LEFT JOIN "RoomMember" m ON m."roomId" = c."roomId" AND m."userId" = c."sender"
  WHERE s."id" = $1 ORDER BY p."position" ${order === "asc" ? "ASC" : "DESC"}`;
};
const PAGE = { asc: pageSql("asc", false), desc: pageSql("desc", false) };
const VIEWER_PAGE = { asc: pageSql("asc", true), desc: pageSql("desc", true) };

/** A viewer's reactions in force on some comments (one statement per number of comments, its text made once). */
const viewerReactionsSqlByArity: string[] = [];
const viewerReactionsSql = (n: number) =>
  (viewerReactionsSqlByArity[n] ??= `SELECT "targetEventId", "key" FROM "Reaction" WHERE "sender" = $1 AND "targetEventId" IN (${Array.from({ length: n }, (_, i) => `$${i + 2}`).join(", ")})`);

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
    member: row.memberMembership === null ? null : { membership: row.memberMembership, displayName: row.memberDisplayName, avatarUrl: row.memberAvatarUrl },
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
  async page(page: PageKey, first: number, last: number, order: "asc" | "desc", viewer: string | null): Promise<{ total: number; comments: ListedComment[] } | null> {
    const rows = viewer === null ? await this.reads.all<ListedRow>(PAGE[order], [page.siteId, page.pageSlug, first, last]) : await this.reads.all<ListedRow>(VIEWER_PAGE[order], [page.siteId, page.pageSlug, first, last, viewer]);
    if (rows.length === 0) return null;
    const total = rows[0]!.pageCount ?? 0;
    if (rows[0]!.eventId === null) return { total, comments: [] };
    const viewerKeys = (row: ListedRow) => (viewer === null ? null : (row.viewerKeys?.split(VIEWER_KEYS_SEPARATOR) ?? []));
    return { total, comments: rows.map((row) => toListed(page, row, viewerKeys(row))) };
  }

  /** The reactions `sender` has in force on the comments `eventIds`. */
  viewerReactions(sender: string, eventIds: string[]): Promise<Array<{ targetEventId: string; key: string }>> {
    return this.reads.all(viewerReactionsSql(eventIds.length), [sender, ...eventIds]);
  }

  find(eventId: string): Promise<Comment | null> {
    return this.db.comment.findUnique({ where: { eventId } });
  }
}
