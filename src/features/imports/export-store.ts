// What an export reads of the read model: a site's pages and each page's comments in list
// order, by keyset (never an offset), a batch at a time, with their authors' current profiles.
import type { Db } from "../../db/client.ts";

export const EXPORT_BATCH = 500;

export interface ExportedRow {
  eventId: string;
  roomId: string;
  sender: string;
  authorType: string;
  authorPublicKey: string | null;
  displayName: string | null;
  status: string;
  content: string;
  replyTo: string | null;
  threadRoot: string | null;
  originServerTs: bigint;
  editedAt: Date | null;
  reactionSummary: string | null;
}

export class ExportStore {
  constructor(private readonly db: Db) {}

  async siteExists(siteId: string): Promise<boolean> {
    return (await this.db.site.count({ where: { id: siteId } })) > 0;
  }

  /** The site's page slugs after `after`, in order: pages with comments. */
  async pageSlugs(siteId: string, after: string | null): Promise<string[]> {
    const rows = await this.db.pageCommentCount.findMany({
      where: { siteId, ...(after === null ? {} : { pageSlug: { gt: after } }) },
      orderBy: { pageSlug: "asc" },
      take: EXPORT_BATCH,
      select: { pageSlug: true },
    });
    return rows.map((r) => r.pageSlug);
  }

  /** A page's comments after list position `after`, oldest first, with each author's current room name. */
  async comments(siteId: string, pageSlug: string, after: number): Promise<Array<ExportedRow & { position: number }>> {
    const positions = await this.db.commentPosition.findMany({
      where: { siteId, pageSlug, position: { gt: after } },
      orderBy: { position: "asc" },
      take: EXPORT_BATCH,
    });
    if (positions.length === 0) return [];
    const rows = await this.db.comment.findMany({ where: { eventId: { in: positions.map((p) => p.eventId) } } });
    const members = await this.db.roomMember.findMany({
      where: {
        roomId: { in: [...new Set(rows.map((r) => r.roomId))] },
        userId: { in: [...new Set(rows.map((r) => r.sender))] },
      },
    });
    const memberName = new Map(members.map((m) => [`${m.roomId} ${m.userId}`, m.displayName]));
    const byId = new Map(rows.map((r) => [r.eventId, r]));
    return positions.flatMap((p) => {
      const row = byId.get(p.eventId);
      if (!row) return [];
      return [
        Object.assign({}, row, {
          displayName: memberName.get(`${row.roomId} ${row.sender}`) ?? row.displayName,
          position: p.position,
        }),
      ];
    });
  }
}
