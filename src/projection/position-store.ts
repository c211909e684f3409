// Comment positions and page counts (CommentPosition, PageCommentCount): maintained by the
// projection in the transaction that adds a comment, so a list page reads exactly its rows
// (positions from..to) and the total (the last position: they run 1..count without a gap, which
// the count row mirrors) at any depth. Positions follow
// (originServerTs, eventId), the list's order, whatever order comments arrive in: a late one
// with an older timestamp shifts the ones after it by one. Comments are never removed from a
// page by the projection (a redaction leaves a tombstone in place); the retirement pass and the
// rebuild, which remove rows, renumber or forget what they removed.
import type { Db, Tx } from "../db/client.ts";

export interface PlacedComment {
  eventId: string;
  siteId: string;
  pageSlug: string;
  originServerTs: bigint;
}

/** Whether comment a sorts before comment b in a page's list. */
export const sortsBefore = (
  a: Pick<PlacedComment, "originServerTs" | "eventId">,
  b: Pick<PlacedComment, "originServerTs" | "eventId">,
): boolean => a.originServerTs < b.originServerTs || (a.originServerTs === b.originServerTs && a.eventId < b.eventId);

/** Gives a new comment its place; call it once, in the transaction that creates its row. */
export async function placeComment(tx: Tx, comment: PlacedComment): Promise<void> {
  const page = { siteId: comment.siteId, pageSlug: comment.pageSlug };
  // Taking the page's counter row first serializes concurrent placements on the page (a row
  // lock on PostgreSQL; SQLite has one writer anyway).
  await tx.pageCommentCount.upsert({
    where: { siteId_pageSlug: page },
    create: { ...page, count: 1 },
    update: { count: { increment: 1 } },
  });
  const last = await tx.commentPosition.findFirst({
    where: page,
    orderBy: { position: "desc" },
    select: { eventId: true, originServerTs: true, position: true },
  });
  let position: number;
  if (!last || sortsBefore(last, comment)) {
    // The usual case: the newest comment goes at the end.
    position = (last?.position ?? 0) + 1;
  } else {
    const ts = comment.originServerTs;
    const before = await tx.commentPosition.count({
      where: {
        ...page,
        OR: [{ originServerTs: { lt: ts } }, { originServerTs: ts, eventId: { lt: comment.eventId } }],
      },
    });
    position = before + 1;
    await tx.commentPosition.updateMany({
      where: { ...page, position: { gte: position } },
      data: { position: { increment: 1 } },
    });
  }
  await tx.commentPosition.create({ data: { ...comment, position } });
}

/** Renumbers a page from its Comment rows (after rows were removed, or for rows written in bulk). */
export async function repositionPage(db: Db | Tx, siteId: string, pageSlug: string): Promise<void> {
  const page = { siteId, pageSlug };
  const rows = await db.comment.findMany({
    where: page,
    orderBy: [{ originServerTs: "asc" }, { eventId: "asc" }],
    select: { eventId: true, originServerTs: true },
  });
  await db.commentPosition.deleteMany({ where: page });
  const chunk = 1000;
  for (let i = 0; i < rows.length; i += chunk) {
    await db.commentPosition.createMany({
      data: rows.slice(i, i + chunk).map((r, j) => ({ ...page, ...r, position: i + j + 1 })),
    });
  }
  if (rows.length === 0) await db.pageCommentCount.deleteMany({ where: page });
  else
    await db.pageCommentCount.upsert({
      where: { siteId_pageSlug: page },
      create: { ...page, count: rows.length },
      update: { count: rows.length },
    });
}

/** Forgets every page of a site, or every page (a rebuild). */
export async function forgetPositions(db: Db | Tx, siteId?: string): Promise<void> {
  const where = siteId === undefined ? {} : { siteId };
  await db.commentPosition.deleteMany({ where });
  await db.pageCommentCount.deleteMany({ where });
}
