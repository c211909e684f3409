// Background passes (retirement, maintenance, …) run once across the cluster: on the instance
// that holds a PostgreSQL session-level advisory lock on a connection of its own. When the
// leader dies its session ends, the lock is released, and a standby, which retries every
// `cluster.leader_retry_ms`, takes over. The leader checks its connection on the same beat, so
// one whose connection broke stops its passes. SQLite is single-instance: that instance leads.
//
// A pass joins with one line: `leader.run("name", pass)`.
import type pg from "pg";
import { providerOf } from "../db/database-url.ts";
import { DedicatedConnection } from "./dedicated-connection.ts";

/** Something that runs in the background while started. */
export interface BackgroundPass {
  start(): void;
  stop(): Promise<void> | void;
}

/** The advisory lock's key, fixed for the service (locks are per database). */
export const LEADER_LOCK_KEY = 7_236_284_951_034_112n;

export class Leadership {
  private readonly passes = new Map<string, BackgroundPass>();
  private readonly connection: DedicatedConnection | null;
  private timer: NodeJS.Timeout | null = null;
  private leading = false;
  /** Start and stop of the passes happen one after the other, never interleaved. */
  private transitions: Promise<void> = Promise.resolve();
  private checking = false;
  private stopped = false;

  constructor(
    databaseUrl: string,
    private readonly retryMs: number,
    private readonly log: (message: string) => void,
  ) {
    this.connection =
      providerOf(databaseUrl) === "postgres"
        ? new DedicatedConnection(
            databaseUrl,
            "leader election",
            { connected: (client) => this.tryLead(client), lost: () => this.follow(), log },
            retryMs,
          )
        : null;
  }

  /** Whether this instance runs the background passes now. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Registers a pass: it runs while this instance leads (at once if it does now). */
  run(name: string, pass: BackgroundPass): void {
    if (this.passes.has(name)) throw new Error(`background pass ${name} registered twice`);
    this.passes.set(name, pass);
    if (this.leading) this.transition(async () => pass.start());
  }

  /** Leads at once (SQLite) or tries to, then keeps trying (PostgreSQL). */
  async start(): Promise<void> {
    if (!this.connection) {
      this.lead();
      return;
    }
    await this.connection.open();
    this.timer = setInterval(() => void this.beat(), this.retryMs);
    this.timer.unref();
  }

  /** Stops the passes and lets go of the lock, so a standby takes over. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.follow();
    await this.transitions;
    await this.connection?.close();
  }

  /** A standby tries to take the lock; the leader checks that its session still holds it. */
  private async beat(): Promise<void> {
    const client = this.connection?.current;
    if (!client || this.checking) return;
    this.checking = true;
    try {
      if (this.leading) await client.query("SELECT 1");
      else await this.tryLead(client);
    } catch (err) {
      // A broken connection reports itself too (error/end), which ends leadership.
      this.log(`leader election: ${(err as Error).message}`);
    } finally {
      this.checking = false;
    }
  }

  private async tryLead(client: pg.Client): Promise<void> {
    if (this.leading || this.stopped) return;
    const result = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
      LEADER_LOCK_KEY.toString(),
    ]);
    if (result.rows[0]?.locked && this.connection?.current === client) this.lead();
  }

  private lead(): void {
    if (this.leading || this.stopped) return;
    this.leading = true;
    this.log("leader election: this instance runs the background passes");
    for (const pass of this.passes.values()) this.transition(async () => pass.start());
  }

  private follow(): void {
    if (!this.leading) return;
    this.leading = false;
    for (const pass of this.passes.values()) this.transition(() => pass.stop());
  }

  private transition(step: () => Promise<void> | void): void {
    this.transitions = this.transitions
      .then(step)
      .catch((err) => this.log(`background pass: ${(err as Error).message}`));
  }
}
