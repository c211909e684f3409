// GET /health: the database (required), the homeserver and the queue.
import type { Db } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { DomainError } from "../../core/errors.ts";
import { HealthStore } from "./health-store.ts";

export class Health {
  private readonly store: HealthStore;

  constructor(
    db: Db,
    private readonly hs: Homeserver,
    private readonly workerRunning: () => boolean,
  ) {
    this.store = new HealthStore(db);
  }

  /** Set when the instance begins to stop: readiness answers 503 from then on. */
  stopping = false;

  /**
   * Readiness (GET /health/ready): whether this instance should receive traffic — false while it
   * stops, or while the database or the homeserver does not answer. (Migrations run before the
   * instance listens, so while they run the probe's connection is refused.)
   */
  async ready(): Promise<{ ready: boolean; database: string; homeserver: string; stopping: boolean }> {
    const settle = (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        () => "unavailable",
      );
    const [database, homeserver] = await Promise.all([settle(this.store.ping()), settle(this.hs.versions())]);
    return {
      ready: !this.stopping && database === "ok" && homeserver === "ok",
      database,
      homeserver,
      stopping: this.stopping,
    };
  }

  /** The queue's figures (metrics). */
  queueFigures() {
    return this.store.queue();
  }

  async check() {
    let queue;
    try {
      const { queued, failed, oldestQueuedAt } = await this.store.queue();
      const oldestQueuedAgeSeconds = oldestQueuedAt ? Math.floor((Date.now() - oldestQueuedAt.getTime()) / 1000) : null;
      queue = { status: this.workerRunning() ? "ok" : "stopped", queued, failed, oldestQueuedAgeSeconds };
    } catch (err) {
      throw new DomainError(
        "database-unavailable",
        500,
        `The database is unreachable: ${(err as Error).message.split("\n")[0]}`,
      );
    }
    let homeserver: { status: string; error: string | null } = { status: "ok", error: null };
    try {
      await this.hs.versions();
    } catch (err) {
      homeserver = { status: "unavailable", error: (err as Error).message };
    }
    return {
      status: homeserver.status === "ok" ? "ok" : "degraded",
      database: { status: "ok", error: null },
      homeserver,
      queue,
    };
  }
}
