// The live events the projection adds (LiveEvent rows, which SSE reads), each in its turn
// (src/sse/live-event-store.ts) so ids become visible in order.
import type { Db, Tx } from "../db/client.ts";
import { addLiveEvents, takeLiveEventTurn } from "../sse/live-event-store.ts";

interface Page {
  siteId: string;
  pageSlug: string;
}

/** A comment's live event, in the applying transaction. */
export async function addCommentLiveEvent(
  tx: Tx,
  page: Page,
  type: string,
  eventId: string,
  payload?: Record<string, unknown>,
): Promise<void> {
  await takeLiveEventTurn(tx);
  await tx.liveEvent.create({
    data: {
      siteId: page.siteId,
      pageSlug: page.pageSlug,
      type,
      eventId,
      payload: payload ? JSON.stringify(payload) : null,
    },
  });
}

/** An `ephemeral` live event, in a transaction of its own. */
export async function addEphemeralLiveEvent(db: Db, page: Page, payload: Record<string, unknown>): Promise<void> {
  await addLiveEvents(db, (tx) =>
    tx.liveEvent.create({
      data: { siteId: page.siteId, pageSlug: page.pageSlug, type: "ephemeral", payload: JSON.stringify(payload) },
    }),
  );
}
