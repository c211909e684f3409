// The LiveEvent rows of a site's activity: the comment events the projection adds per page, and
// the held-comment events the moderation feature adds. Those are stored under the page slug ""
// (no page has it), so visitors' page streams never read them; their page is in the payload.
import type { Db, LiveEvent, Tx } from "../../db/client.ts";
import { takeLiveEventTurn } from "../../sse/live-event-store.ts";

/** The page slug of held-comment activity rows: no page's, so no page stream reads them. */
export const HELD_ACTIVITY_PAGE = "";

export const COMMENT_ACTIVITY_TYPES = ["message_created", "message_updated", "message_deleted"] as const;
// comment_failed: a new comment the homeserver refused (a page closed or an author banned meanwhile).
export const HELD_ACTIVITY_TYPES = ["comment_held", "comment_approved", "comment_rejected", "comment_failed"] as const;
export type HeldActivityType = (typeof HELD_ACTIVITY_TYPES)[number];
const ACTIVITY_TYPES = [...COMMENT_ACTIVITY_TYPES, ...HELD_ACTIVITY_TYPES];

export class SiteActivityStore {
  constructor(private readonly db: Db) {}

  /** The site's newest activity row id (0: none). */
  async latestId(siteId: string): Promise<number> {
    const row = await this.db.liveEvent.findFirst({
      where: { siteId, type: { in: ACTIVITY_TYPES } },
      orderBy: { id: "desc" },
      select: { id: true },
    });
    return row?.id ?? 0;
  }

  /** Up to `take` of the site's activity rows after `afterId`, in id order. */
  after(siteId: string, afterId: number, take: number): Promise<LiveEvent[]> {
    return this.db.liveEvent.findMany({
      where: { siteId, id: { gt: afterId }, type: { in: ACTIVITY_TYPES } },
      orderBy: { id: "asc" },
      take,
    });
  }
}

/** Adds a held-comment activity row in `tx`, in its live-event turn. */
export async function addHeldActivityRow(
  tx: Tx,
  siteId: string,
  type: HeldActivityType,
  payload: Record<string, unknown>,
): Promise<void> {
  await takeLiveEventTurn(tx);
  await tx.liveEvent.create({ data: { siteId, pageSlug: HELD_ACTIVITY_PAGE, type, payload: JSON.stringify(payload) } });
}
