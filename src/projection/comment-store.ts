// Comment and Reaction rows, as comments.ts derives them from the event store.
import type { Prisma, Tx } from "../db/client.ts";
import type { Comment, Reaction, Room } from "../db/client.ts";

export function commentRow(tx: Tx, eventId: string): Promise<Comment | null> {
  return tx.comment.findUnique({ where: { eventId } });
}

export async function createComment(tx: Tx, data: Prisma.CommentUncheckedCreateInput): Promise<void> {
  await tx.comment.create({ data });
}

export async function updateComment(tx: Tx, eventId: string, data: Prisma.CommentUncheckedUpdateInput): Promise<void> {
  await tx.comment.update({ where: { eventId }, data });
}

/** A user's comments in a page room, in list order, with the profile each captured. */
export function commentsBySender(tx: Tx, room: Room, sender: string): Promise<Array<Pick<Comment, "eventId" | "displayName" | "avatarUrl">>> {
  return tx.comment.findMany({
    where: { siteId: room.siteId, pageSlug: room.pageSlug, roomId: room.roomId, sender },
    orderBy: [{ originServerTs: "asc" }, { eventId: "asc" }],
    select: { eventId: true, displayName: true, avatarUrl: true },
  });
}

/** The Reaction rows of a comment. */
export function reactionRows(tx: Tx, targetEventId: string): Promise<Reaction[]> {
  return tx.reaction.findMany({ where: { targetEventId } });
}

/** Removes the reactions `gone` and adds `added` (both possibly empty). */
export async function changeReactions(tx: Tx, gone: string[], added: Reaction[]): Promise<void> {
  if (gone.length > 0) await tx.reaction.deleteMany({ where: { eventId: { in: gone } } });
  if (added.length > 0) await tx.reaction.createMany({ data: added });
}
