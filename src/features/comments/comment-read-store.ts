// Domain reads of the projected comments (Comment rows, their maintained positions, counts and
// reaction summaries); the projection writes them (src/projection/). The list read's statements
// run on the driver, prepared once (src/db/driver-statements.ts): a page is two statements however
// deep it is: the site with the page's count, then its positions joined with their comments and
// their authors' current room profiles.
import type { Db } from "../../db/client.ts";
import { driverStatements } from "../../db/client.ts";
import type { Comment } from "../../db/client.ts";
import type { Membership } from "../../projection/member-store.ts";
import { asBigInt, asDate, type DriverStatements } from "../../db/driver-statements.ts";

export interface PageKey {
  siteId: string;
  pageSlug: string;
}

/** A Comment row as the drivers return it, with its author's RoomMember columns (null: no row). */
type PlacedRow = Omit<Comment, "originServerTs" | "editedAt" | "createdAt"> & {
  originServerTs: number | string;
  editedAt: string | Date | null;
  createdAt: string | Date;
  memberMembership: string | null;
  memberDisplayName: string | null;
  memberAvatarUrl: string | null;
};

/** A comment of a page, with its author's current profile in the room (null: never a member). */
export interface PlacedComment {
  comment: Comment;
  member: Membership | null;
}

const COMMENT_COLUMNS = ["eventId", "roomId", "siteId", "pageSlug", "sender", "submissionId", "authorType", "authorPublicKey", "displayName", "avatarUrl", "status", "content", "replyTo", "threadRoot", "originServerTs", "editedAt", "createdAt", "reactionSummary"]
  .map((column) => `c."${column}"`)
  .join(", ");

/** The comments at positions $3..$4 of a page, in position order (one statement per order). */
const placedSql = (order: "asc" | "desc") => `SELECT ${COMMENT_COLUMNS}, m."membership" AS "memberMembership", m."displayName" AS "memberDisplayName", m."avatarUrl" AS "memberAvatarUrl"
  FROM "CommentPosition" p JOIN "Comment" c ON c."eventId" = p."eventId" LEFT JOIN "RoomMember" m ON m."roomId" = c."roomId" AND m."userId" = c."sender"
  WHERE p."siteId" = $1 AND p."pageSlug" = $2 AND p."position" >= $3 AND p."position" <= $4 ORDER BY p."position" ${order === "asc" ? "ASC" : "DESC"}`;
const PLACED = { asc: placedSql("asc"), desc: placedSql("desc") };
/** No row: the site is not registered; a null count: no comment yet. */
const SITE_COUNT = `SELECT n."count" FROM "Site" s LEFT JOIN "PageCommentCount" n ON n."siteId" = s."id" AND n."pageSlug" = $2 WHERE s."id" = $1`;

function toPlaced(row: PlacedRow): PlacedComment {
  const { memberMembership, memberDisplayName, memberAvatarUrl, ...comment } = row;
  return {
    comment: { ...comment, originServerTs: asBigInt(row.originServerTs), editedAt: asDate(row.editedAt), createdAt: asDate(row.createdAt)! },
    member: memberMembership === null ? null : { membership: memberMembership, displayName: memberDisplayName, avatarUrl: memberAvatarUrl },
  };
}

export class CommentReadStore {
  constructor(private readonly db: Db) {}

  private get reads(): DriverStatements {
    return driverStatements(this.db);
  }

  /** The page's maintained comment count (src/projection/position-store.ts), at any depth; null when the site is not registered. */
  async count(page: PageKey): Promise<number | null> {
    const [row] = await this.reads.all<{ count: number | null }>(SITE_COUNT, [page.siteId, page.pageSlug]);
    return row ? (row.count ?? 0) : null;
  }

  /** The comments at positions from..to of the page, in `order`. */
  async placed(page: PageKey, from: number, to: number, order: "asc" | "desc"): Promise<PlacedComment[]> {
    return (await this.reads.all<PlacedRow>(PLACED[order], [page.siteId, page.pageSlug, from, to])).map(toPlaced);
  }

  find(eventId: string): Promise<Comment | null> {
    return this.db.comment.findUnique({ where: { eventId } });
  }
}
