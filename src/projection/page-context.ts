// What applying one event in a page room works with, and how its effects are announced.
import type { Tx } from "../db/client.ts";
import type { Room } from "../db/client.ts";
import type { DriverStatements } from "../db/driver-statements.ts";
import type { MatrixNames } from "../matrix/names.ts";
import { addCommentLiveEvent } from "./live-event-store.ts";

export interface PageContext {
  tx: Tx;
  /** The hot reads, prepared once; they see only what is committed, so never what `tx` wrote. */
  reads: DriverStatements;
  room: Room;
  names: MatrixNames;
  /** False during a rebuild: replaying history announces nothing. */
  live: boolean;
}

export type CommentLiveEvent = "message_created" | "message_updated" | "message_deleted" | "message_annotations_changed";

/** Adds a live event for the page (SSE reads these rows), in the applying transaction. */
export async function announce(page: PageContext, type: CommentLiveEvent, eventId: string, payload?: Record<string, unknown>): Promise<void> {
  if (!page.live) return;
  await addCommentLiveEvent(page.tx, page.room, type, eventId, payload);
}
