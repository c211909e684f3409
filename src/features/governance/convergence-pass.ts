// The background convergence pass of role power levels: for every site with roles it derives
// the rows the rooms lack (a room created while a role changed, a room adopted instead of
// created) and writes every row the homeserver has not accepted yet (a failed write). It never
// compares a written level with the room, so levels changed by hand in Matrix are not fought.
import { PASS_INTERVALS_MS } from "../../config/limits.ts";
import { classifyMatrixError } from "../../matrix/errors.ts";
import { PeriodicPass } from "../../cluster/periodic-pass.ts";
import type { RolePowerLevels } from "./power-levels.ts";

export class ConvergencePass {
  private readonly pass = new PeriodicPass(() => this.runAll());

  constructor(
    private readonly levels: RolePowerLevels,
    private readonly log: (message: string) => void,
  ) {}

  start(intervalMs = PASS_INTERVALS_MS.convergence): void {
    this.pass.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  kick(): void {
    this.pass.kick();
  }

  /** One pass over every site with roles. Never throws. */
  async runAll(): Promise<void> {
    try {
      for (const siteId of await this.levels.sitesToConverge()) {
        await this.levels.reconcile(siteId);
        await this.levels.flush(siteId);
      }
    } catch (err) {
      this.log(`governance convergence: ${classifyMatrixError(err).message}`);
    }
  }
}
