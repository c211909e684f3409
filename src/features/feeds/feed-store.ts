// What the Atom feeds read: a site's or a page's newest standing comments with their authors'
// current room profiles, and when the scope last changed (a comment written, edited or deleted).
import type { Db } from "../../db/client.ts";
import type { Comment } from "../../db/client.ts";
import type { Membership } from "../../projection/member-store.ts";

export interface FeedScope {
  siteId: string;
  /** null: the whole site. */
  pageSlug: string | null;
}

export type FeedComment = Pick<
  Comment,
  "eventId" | "roomId" | "pageSlug" | "sender" | "displayName" | "avatarUrl" | "content" | "originServerTs" | "editedAt"
> & { member: Membership | null };

const where = (scope: FeedScope) => ({
  siteId: scope.siteId,
  ...(scope.pageSlug === null ? {} : { pageSlug: scope.pageSlug }),
});

export class FeedStore {
  constructor(private readonly db: Db) {}

  /** The site's page URL pattern as stored; undefined when the site is not registered. */
  async site(siteId: string): Promise<{ id: string; pageUrlPattern: string | null; createdAt: Date } | undefined> {
    const site = await this.db.site.findUnique({
      where: { id: siteId },
      select: { id: true, pageUrlPattern: true, createdAt: true },
    });
    return site ?? undefined;
  }

  /** The newest `limit` standing comments of the scope, newest first. */
  async recent(scope: FeedScope, limit: number): Promise<FeedComment[]> {
    const comments = await this.db.comment.findMany({
      where: { ...where(scope), status: { not: "redacted" } },
      orderBy: [{ originServerTs: "desc" }, { eventId: "desc" }],
      take: limit,
      select: {
        eventId: true,
        roomId: true,
        pageSlug: true,
        sender: true,
        displayName: true,
        avatarUrl: true,
        content: true,
        originServerTs: true,
        editedAt: true,
      },
    });
    if (comments.length === 0) return [];
    const members = await this.db.roomMember.findMany({
      where: { OR: comments.map((c) => ({ roomId: c.roomId, userId: c.sender })) },
      select: { roomId: true, userId: true, membership: true, displayName: true, avatarUrl: true },
    });
    const byKey = new Map(members.map((m) => [`${m.roomId}\u0000${m.userId}`, m]));
    return comments.map((c) => ({ member: byKey.get(`${c.roomId}\u0000${c.sender}`) ?? null, ...c }));
  }

  /** When the scope last changed: its newest comment written, edited or deleted (null: no comment yet). */
  async lastChange(scope: FeedScope): Promise<Date | null> {
    const { _max } = await this.db.comment.aggregate({
      where: where(scope),
      _max: { originServerTs: true, editedAt: true, redactedAt: true },
    });
    const times = [
      _max.originServerTs === null ? null : Number(_max.originServerTs),
      _max.editedAt?.getTime() ?? null,
      _max.redactedAt?.getTime() ?? null,
    ].filter((t): t is number => t !== null);
    return times.length === 0 ? null : new Date(Math.max(...times));
  }
}
