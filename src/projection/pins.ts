// A page's pinned comments (m.room.pinned_events in its room): announced as pins_changed with the
// room's current pins, so live clients reorder without reading the page again.
import { stateEvent } from "./matrix-event-store.ts";
import { announce, type PageContext } from "./page-context.ts";
import type { RoomEvent } from "./room-event.ts";
import { EventType } from "../contract/matrix-vocabulary.ts";

/** The pinned event ids of m.room.pinned_events content, in order. */
export const pinnedIds = (content: unknown): string[] => {
  const pinned = (content as { pinned?: unknown } | null)?.pinned;
  return Array.isArray(pinned) ? pinned.filter((id): id is string => typeof id === "string") : [];
};

export async function announcePins(page: PageContext, event: RoomEvent): Promise<void> {
  if (event.state_key !== "") return;
  // Only the room's current pins are news: an older pins event arriving late changes nothing.
  const current = await stateEvent(page.reads, page.room.roomId, EventType.PinnedEvents, "");
  if (current && current.event_id !== event.event_id) return;
  await announce(page, "pins_changed", event.event_id, { pinned: pinnedIds(event.content) });
}
