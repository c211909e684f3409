// A site's activity for dashboards, live: new, edited and deleted comments on any of its pages
// (the projection's live events) and held comments held, approved or rejected (the moderation
// feature calls recordHeldActivity). Rows of LiveEvent after a cursor, woken by the in-process
// fan-out (which every instance's live-event poller feeds), so a dashboard on any instance sees
// what any instance stored. The stream re-checks its caller's access on every wake and at least
// every ACCESS_RECHECK_MS: a governor who loses their role or signs out is cut off at once.
import type { Db, LiveEvent, Tx } from "../../db/client.ts";
import type { LiveEvents } from "../../sse/live-events.ts";
import { CursorStream } from "../../sse/cursor-stream.ts";
import { addHeldActivityRow, type HeldActivityType, SiteActivityStore } from "./site-activity-store.ts";

export const ACCESS_RECHECK_MS = 5_000;

/** What a held comment's activity says: its page, its submission, and who reviewed it (approve/reject). */
export interface HeldActivity {
  siteId: string;
  pageSlug: string;
  submissionId: string;
  type: HeldActivityType;
  /** Why it was held ("all", "first-post", "links", "words"), for comment_held; the homeserver's refusal, for comment_failed. */
  reason?: string | null;
  /** Who approved or rejected it (a Matrix user id, or "operator"). */
  by?: string | null;
}

const payloadOf = (a: HeldActivity) => ({
  page_slug: a.pageSlug,
  submission_id: a.submissionId,
  ...(a.reason ? { reason: a.reason } : {}),
  ...(a.by ? { by: a.by } : {}),
});

/**
 * Records a held comment's activity in the caller's transaction (with the hold, approval or
 * rejection it reports, so neither is seen without the other). After the commit, call
 * `signals.liveEventsStored()` so open dashboards hear of it at once (else within live.fallback_poll_ms).
 */
export function recordHeldActivity(tx: Tx, activity: HeldActivity): Promise<void> {
  return addHeldActivityRow(tx, activity.siteId, activity.type, payloadOf(activity));
}

export class SiteActivity {
  private readonly store: SiteActivityStore;

  constructor(
    db: Db,
    private readonly live: LiveEvents,
  ) {
    this.store = new SiteActivityStore(db);
  }

  /**
   * The site's activity after `after` (null: only new ones). `allowed` is checked before every
   * read (and so at least every ACCESS_RECHECK_MS); when it throws, the stream ends with that error.
   */
  async open(
    siteId: string,
    after: number | null,
    allowed: () => Promise<void>,
  ): Promise<AsyncIterableIterator<LiveEvent>> {
    const stream = new CursorStream({
      read: (cursor, limit) => this.store.after(siteId, cursor, limit),
      allowed,
      // Wakes to re-check access even when nothing happens on the site.
      wakeEveryMs: ACCESS_RECHECK_MS,
    });
    // Subscribe before reading the cursor so nothing published in between is missed.
    stream.unsubscribe = this.live.subscribeSite(siteId, () => stream.poke());
    try {
      stream.cursor = after ?? (await this.store.latestId(siteId));
      return stream;
    } catch (err) {
      await stream.return();
      throw err;
    }
  }
}
