// The automatic retries of projection repairs: each pending repair whose retry is due is applied
// again from the event store; a repair whose event is not stored (a rejected entry) has nothing
// to retry and becomes manual.
import { PASS_INTERVALS_MS } from "../config/limits.ts";
import type { Db } from "../db/client.ts";
import { PeriodicPass } from "../cluster/periodic-pass.ts";
import { dueRepairs, manualIfUnstored } from "./repair-store.ts";

export class RepairPass {
  private readonly pass = new PeriodicPass(() => this.retryDue());
  /** The pass's clock: tests move it. */
  clock: () => Date = () => new Date();

  constructor(
    private readonly db: Db,
    private readonly retry: (eventId: string) => Promise<void>,
    private readonly log: (message: string) => void,
  ) {}

  start(intervalMs = PASS_INTERVALS_MS.repairs): void {
    this.pass.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  kick(): void {
    this.pass.kick();
  }

  /** One run over the due repairs. Never throws. */
  async retryDue(): Promise<void> {
    try {
      for (const repair of await dueRepairs(this.db, this.clock())) {
        if (!(await manualIfUnstored(this.db, repair.targetEventId))) await this.retry(repair.targetEventId);
      }
    } catch (err) {
      this.log(`projection repairs: ${(err as Error).message}`);
    }
  }
}
