// The read model as a whole: what a rebuild clears before replaying the event store.
import type { Db } from "../db/client.ts";

/** Clears every derived table and sets every stored event waiting again, in one transaction. */
export async function resetReadModel(db: Db): Promise<void> {
  await db.$transaction([
    db.comment.deleteMany(),
    db.commentPosition.deleteMany(),
    db.pageCommentCount.deleteMany(),
    db.reaction.deleteMany(),
    db.roomMember.deleteMany(),
    db.roomState.deleteMany(),
    db.projectionRepair.deleteMany(),
    db.matrixEvent.updateMany({ where: { status: { not: "waiting" } }, data: { status: "waiting" } }),
  ]);
}
