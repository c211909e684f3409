// Comment and Reaction rows, as comments.ts derives them from the event store. Its reads of a
// comment's rows run on the driver (committed rows only: comments.ts reads a comment's rows before
// its transaction writes them).
import type { Prisma, Tx } from "../db/client.ts";
import type { Comment, Reaction, Room } from "../db/client.ts";
import { asBigInt, asDate, type DriverStatements } from "../db/driver-statements.ts";

/** What recomputing a comment compares with. */
export type CommentFields = Pick<
  Comment,
  "status" | "content" | "editedAt" | "replyTo" | "threadRoot" | "reactionSummary" | "authorType" | "authorPublicKey"
>;
export type ReactionFields = Pick<Reaction, "eventId" | "sender" | "key" | "originServerTs">;

const COMMENT = `SELECT "status", "content", "editedAt", "replyTo", "threadRoot", "reactionSummary", "authorType", "authorPublicKey" FROM "Comment" WHERE "eventId" = $1`;
const REACTIONS = `SELECT "eventId", "sender", "key", "originServerTs" FROM "Reaction" WHERE "targetEventId" = $1`;

export async function commentRow(reads: DriverStatements, eventId: string): Promise<CommentFields | null> {
  const [row] = await reads.all<Omit<CommentFields, "editedAt"> & { editedAt: string | Date | null }>(COMMENT, [
    eventId,
  ]);
  return row ? { ...row, editedAt: asDate(row.editedAt) } : null;
}

export async function createComment(tx: Tx, data: Prisma.CommentUncheckedCreateInput): Promise<void> {
  await tx.comment.create({ data });
}

export async function updateComment(tx: Tx, eventId: string, data: Prisma.CommentUncheckedUpdateInput): Promise<void> {
  await tx.comment.update({ where: { eventId }, data });
}

/** A user's comments in a page room, in list order, with the profile each captured. */
export function commentsBySender(
  tx: Tx,
  room: Room,
  sender: string,
): Promise<Array<Pick<Comment, "eventId" | "displayName" | "avatarUrl">>> {
  return tx.comment.findMany({
    where: { siteId: room.siteId, pageSlug: room.pageSlug, roomId: room.roomId, sender },
    orderBy: [{ originServerTs: "asc" }, { eventId: "asc" }],
    select: { eventId: true, displayName: true, avatarUrl: true },
  });
}

/** The Reaction rows of a comment. */
export async function reactionRows(reads: DriverStatements, targetEventId: string): Promise<ReactionFields[]> {
  const rows = await reads.all<Omit<ReactionFields, "originServerTs"> & { originServerTs: number | string }>(
    REACTIONS,
    [targetEventId],
  );
  return rows.map((row) => ({ ...row, originServerTs: asBigInt(row.originServerTs) }));
}

/** Removes the reactions `gone` and adds `added` (both possibly empty). */
export async function changeReactions(tx: Tx, gone: string[], added: Reaction[]): Promise<void> {
  if (gone.length > 0) await tx.reaction.deleteMany({ where: { eventId: { in: gone } } });
  if (added.length > 0) await tx.reaction.createMany({ data: added });
}
