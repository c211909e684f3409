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
  /** Told, in the applying transaction, when a comment became visible, was edited or deleted (webhooks); absent: nobody listens. */
  commentChanged?: CommentChangeHook;
}

/** What happened to a comment, as those outside the page (webhooks) are told. */
export type CommentChangeKind = "created" | "edited" | "deleted";

export interface CommentChange {
  siteId: string;
  pageSlug: string;
  eventId: string;
  kind: CommentChangeKind;
  /** Tells one edit of a comment from another (its time); "" for a creation or deletion. */
  revision: string;
}

/**
 * Records a comment's change in the applying transaction `tx`: it commits with the change or not
 * at all, and a repeated event changes nothing, so nothing is recorded twice.
 */
export type CommentChangeHook = (tx: Tx, change: CommentChange) => Promise<void>;

export type CommentLiveEvent =
  | "message_created"
  | "message_updated"
  | "message_deleted"
  | "message_annotations_changed"
  | "pins_changed";

/** Adds a live event for the page (SSE reads these rows), in the applying transaction. */
export async function announce(
  page: PageContext,
  type: CommentLiveEvent,
  eventId: string,
  payload?: Record<string, unknown>,
): Promise<void> {
  if (!page.live) return;
  await addCommentLiveEvent(page.tx, page.room, type, eventId, payload);
}

/** Tells the page's listener (if any) that a comment changed, in the applying transaction. */
export async function commentChanged(
  page: PageContext,
  kind: CommentChangeKind,
  eventId: string,
  revision: string,
): Promise<void> {
  if (!page.live || !page.commentChanged) return;
  await page.commentChanged(page.tx, {
    siteId: page.room.siteId,
    pageSlug: page.room.pageSlug,
    eventId,
    kind,
    revision,
  });
}
