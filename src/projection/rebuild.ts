// Rebuilding the read model from the event store: the derived tables are cleared and every
// stored event is applied again in arrival order, announcing nothing (npm run rebuild).
import type { Db } from "../db/client.ts";
import type { MatrixNames } from "../matrix/names.ts";
import { storedEvents } from "./event-store.ts";
import { Projector } from "./projector.ts";

export interface RebuildSummary {
  events: number;
  applied: number;
  waiting: number;
  failed: number;
}

/** Run it while no service instance is projecting into the same database. */
export async function rebuildReadModel(db: Db, names: MatrixNames): Promise<RebuildSummary> {
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
  const projector = new Projector(db, names, async () => {}, false);
  for await (const event of storedEvents(db)) await projector.apply(event);
  const counts = await db.matrixEvent.groupBy({ by: ["status"], _count: { _all: true } });
  const count = (status: string) => counts.find((c) => c.status === status)?._count._all ?? 0;
  return { events: counts.reduce((sum, c) => sum + c._count._all, 0), applied: count("applied"), waiting: count("waiting"), failed: count("failed") };
}
