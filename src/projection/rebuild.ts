// Rebuilding the read model from the event store: the derived tables are cleared and every
// stored event is applied again in arrival order, announcing nothing (npm run rebuild).
import type { Db } from "../db/client.ts";
import type { MatrixNames } from "../matrix/names.ts";
import { countByStatus, storedEvents } from "./matrix-event-store.ts";
import { Projector } from "./projector.ts";
import { resetReadModel } from "./read-model-store.ts";

export interface RebuildSummary {
  events: number;
  applied: number;
  waiting: number;
  failed: number;
}

/** Run it while no service instance is projecting into the same database. */
export async function rebuildReadModel(db: Db, names: MatrixNames): Promise<RebuildSummary> {
  await resetReadModel(db);
  const projector = new Projector(db, names, async () => {}, false);
  for await (const event of storedEvents(db)) await projector.apply(event);
  const counts = await countByStatus(db);
  const count = (status: "applied" | "waiting" | "failed") => counts.get(status) ?? 0;
  return {
    events: [...counts.values()].reduce((sum, n) => sum + n, 0),
    applied: count("applied"),
    waiting: count("waiting"),
    failed: count("failed"),
  };
}
