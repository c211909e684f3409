// Domain reads of the projected comments (Comment rows, their maintained positions and counts,
// reactions); the projection writes them (src/projection/).
import type { Db } from "../../db/client.ts";
import { Prisma } from "../../db/client.ts";
import type { Comment } from "../../db/client.ts";

export interface PageKey {
  siteId: string;
  pageSlug: string;
}

export class CommentReadStore {
  constructor(private readonly db: Db) {}

  /** The page's maintained comment count (src/projection/position-store.ts), at any depth. */
  async count(page: PageKey): Promise<number> {
    return (await this.db.pageCommentCount.findUnique({ where: { siteId_pageSlug: page }, select: { count: true } }))?.count ?? 0;
  }

  /** The event ids at positions from..to of the page, in `order`. */
  async placed(page: PageKey, from: number, to: number, order: "asc" | "desc"): Promise<string[]> {
    const rows = await this.db.commentPosition.findMany({ where: { ...page, position: { gte: from, lte: to } }, orderBy: { position: order }, select: { eventId: true } });
    return rows.map((p) => p.eventId);
  }

  byEventIds(eventIds: string[]): Promise<Comment[]> {
    return this.db.comment.findMany({ where: { eventId: { in: eventIds } } });
  }

  find(eventId: string): Promise<Comment | null> {
    return this.db.comment.findUnique({ where: { eventId } });
  }

  /** Which of the events `sender` reacted to, with which keys. */
  reactionsBy(sender: string, eventIds: string[]): Promise<Array<{ eventId: string; key: string }>> {
    // Raw: on this hot path Prisma's query compiler cost more than the query itself.
    return this.db.$queryRaw<Array<{ eventId: string; key: string }>>`
      SELECT "targetEventId" AS "eventId", "key" FROM "Reaction" WHERE "sender" = ${sender} AND "targetEventId" IN (${Prisma.join(eventIds)})`;
  }
}
