// Domain reads of the projected comments (Comment rows, their maintained positions and counts);
// the projection writes them (src/projection/). The list read's statements run on
// the driver, prepared once (src/db/driver-statements.ts): a page's rows are two statements (its count,
// its positions joined with their comments) however deep the page is.
import type { Db } from "../../db/client.ts";
import { driverStatements } from "../../db/client.ts";
import type { Comment } from "../../db/client.ts";
import { asBigInt, asDate, type DriverStatements } from "../../db/driver-statements.ts";

export interface PageKey {
  siteId: string;
  pageSlug: string;
}

/** A Comment row as the drivers return it. */
type CommentRow = Omit<Comment, "originServerTs" | "editedAt" | "createdAt"> & { originServerTs: number | string; editedAt: string | Date | null; createdAt: string | Date };

const COMMENT_COLUMNS = ["eventId", "roomId", "siteId", "pageSlug", "sender", "submissionId", "authorType", "authorPublicKey", "displayName", "avatarUrl", "status", "content", "replyTo", "threadRoot", "originServerTs", "editedAt", "createdAt"]
  .map((column) => `c."${column}"`)
  .join(", ");

/** The comments at positions $3..$4 of a page, in position order (one statement per order). */
const placedSql = (order: "asc" | "desc") => `SELECT ${COMMENT_COLUMNS} FROM "CommentPosition" p JOIN "Comment" c ON c."eventId" = p."eventId"
  WHERE p."siteId" = $1 AND p."pageSlug" = $2 AND p."position" >= $3 AND p."position" <= $4 ORDER BY p."position" ${order === "asc" ? "ASC" : "DESC"}`;
const PLACED = { asc: placedSql("asc"), desc: placedSql("desc") };
const COUNT = `SELECT "count" FROM "PageCommentCount" WHERE "siteId" = $1 AND "pageSlug" = $2`;

const toComment = (row: CommentRow): Comment => ({ ...row, originServerTs: asBigInt(row.originServerTs), editedAt: asDate(row.editedAt), createdAt: asDate(row.createdAt)! });

export class CommentReadStore {
  constructor(private readonly db: Db) {}

  private get reads(): DriverStatements {
    return driverStatements(this.db);
  }

  /** The page's maintained comment count (src/projection/position-store.ts), at any depth. */
  async count(page: PageKey): Promise<number> {
    const [row] = await this.reads.all<{ count: number }>(COUNT, [page.siteId, page.pageSlug]);
    return row?.count ?? 0;
  }

  /** The comments at positions from..to of the page, in `order`. */
  async placed(page: PageKey, from: number, to: number, order: "asc" | "desc"): Promise<Comment[]> {
    return (await this.reads.all<CommentRow>(PLACED[order], [page.siteId, page.pageSlug, from, to])).map(toComment);
  }

  find(eventId: string): Promise<Comment | null> {
    return this.db.comment.findUnique({ where: { eventId } });
  }
}
