// What the write pipeline reads and writes itself: the comments a write points at, and the one
// transaction in which the challenge, the submission (or record) and the idempotent response
// are stored together.
import type { Db, Tx } from "../db/client.ts";
import type { Target } from "./operation.ts";

/** A comment as target checks see it: a Target with its page, content still serialized. */
export type TargetRow = Omit<Target, "content"> & { siteId: string; pageSlug: string; content: string };

export class WriteStore {
  constructor(private readonly db: Db) {}

  /** One transaction across the stores a write touches (they take `tx`). */
  transaction(work: (tx: Tx) => Promise<void>): Promise<void> {
    return this.db.$transaction(work);
  }

  /** The comments with these event ids (missing ones are absent). */
  targetComments(eventIds: string[]): Promise<TargetRow[]> {
    return this.db.comment.findMany({
      where: { eventId: { in: eventIds } },
      select: {
        eventId: true,
        roomId: true,
        siteId: true,
        pageSlug: true,
        status: true,
        authorType: true,
        authorPublicKey: true,
        threadRoot: true,
        content: true,
      },
    });
  }
}
