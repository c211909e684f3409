// GET /health: the database (required), the homeserver and the queue.
import type { Db } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { DomainError } from "../../core/errors.ts";

export class Health {
  constructor(
    private readonly db: Db,
    private readonly hs: Homeserver,
    private readonly workerRunning: () => boolean,
  ) {}

  async check() {
    let queue;
    try {
      const [queued, failed, oldest] = await Promise.all([
        this.db.submission.count({ where: { status: "queued" } }),
        this.db.submission.count({ where: { status: "failed" } }),
        this.db.submission.findFirst({ where: { status: "queued" }, orderBy: { createdAt: "asc" }, select: { createdAt: true } }),
      ]);
      const oldestQueuedAgeSeconds = oldest ? Math.floor((Date.now() - oldest.createdAt.getTime()) / 1000) : null;
      queue = { status: this.workerRunning() ? "ok" : "stopped", queued, failed, oldestQueuedAgeSeconds };
    } catch (err) {
      throw new DomainError("database-unavailable", 500, `The database is unreachable: ${(err as Error).message.split("\n")[0]}`);
    }
    let homeserver: { status: string; error: string | null } = { status: "ok", error: null };
    try {
      await this.hs.versions();
    } catch (err) {
      homeserver = { status: "unavailable", error: (err as Error).message };
    }
    return { status: homeserver.status === "ok" ? "ok" : "degraded", database: { status: "ok", error: null }, homeserver, queue };
  }
}
