// The queue worker: claims due submissions, performs them against the homeserver, and records
// the outcome on the row. Each page's submissions are a lane performed one at a time in
// submission order (src/queue/submission-store.ts); lanes run in parallel up to `concurrency`, so a slow,
// failing or still-provisioning page holds one slot and never the others. Rows are leased and
// the lease is renewed while the work is in flight, so several instances can share one queue
// and a crashed worker's row is picked up again once its lease runs out.
import type { Db } from "../db/client.ts";
import { PeriodicPass } from "../cluster/periodic-pass.ts";
import type { Provider } from "../db/database-url.ts";
import type { Submission } from "../db/client.ts";
import { classifyMatrixError } from "../matrix/errors.ts";
import { retryDelayMs } from "./backoff.ts";
import { SubmissionStore, type Claim, type Outcome } from "./submission-store.ts";

/** Performs one submission; returns the Matrix event id it produced. */
export type SubmissionHandler = (submission: Submission) => Promise<string | null>;

export interface WorkerOptions {
  pollIntervalMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  /** Submissions performed at once (each from a different page). */
  concurrency: number;
  /** How long a claim holds a row; renewed every third of it while the work runs. */
  leaseMs: number;
  provider: Provider;
  log?: (message: string) => void;
  /** Each attempt's outcome (metrics). */
  onOutcome?: (outcome: "sent" | "retried" | "failed") => void;
  /** A submission failed for good, once recorded (its author and the site's governors are told). */
  onFailed?: (submission: Submission, message: string) => Promise<void>;
}

export class QueueWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  /** A wake that came while the loop was busy: the next idle wait returns at once. */
  private woken = false;
  private readonly inFlight = new Map<string, { claim: Claim; done: Promise<void> }>();
  private readonly renewal = new PeriodicPass(() => this.renewLeases());
  private readonly submissions: SubmissionStore;

  constructor(
    db: Db,
    private readonly handlers: Record<string, SubmissionHandler>,
    private readonly options: WorkerOptions,
  ) {
    this.submissions = new SubmissionStore(db);
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.renewal.start(Math.max(1, Math.floor(this.options.leaseMs / 3)));
    this.loop = this.run();
  }

  /** Stops claiming and waits for the work in flight (each homeserver call has a timeout). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await this.settled();
    await this.renewal.stop();
  }

  /** Called when a submission was queued or a lane moved on, so work starts without waiting for the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /**
   * Claims what is due now (up to the free slots) and performs it; resolves once all of it is
   * recorded. Returns how many submissions it took. The loop uses claimDue; tests call this.
   */
  async runOnce(now = new Date()): Promise<number> {
    const claimed = await this.claimDue(now);
    await this.settled();
    return claimed;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      try {
        await this.claimDue(new Date());
      } catch (err) {
        this.options.log?.(`queue: ${(err as Error).message}`);
      }
      // Wait for a wake (a new submission; a finished one, whose lane may have a next and
      // whose slot is free again) or the poll interval (a retry coming due).
      if (this.running && !this.woken) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wakeUp?.(), this.options.pollIntervalMs);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
    });
  }

  private async claimDue(now: Date): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const claimed = await this.submissions.claimLaneHeads(
      this.options.provider,
      now,
      new Date(now.getTime() + this.options.leaseMs),
      free,
    );
    for (const submission of claimed) {
      const claim = { id: submission.id, attempts: submission.attempts };
      const done = this.perform(submission, claim).finally(() => {
        this.inFlight.delete(claim.id);
        this.wake();
      });
      this.inFlight.set(claim.id, { claim, done });
    }
    return claimed.length;
  }

  private async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()].map((w) => w.done));
  }

  /** Extends the lease of every row in flight that this worker still holds. */
  private async renewLeases(): Promise<void> {
    if (this.inFlight.size === 0) return;
    const leaseUntil = new Date(Date.now() + this.options.leaseMs);
    try {
      await Promise.all([...this.inFlight.values()].map(({ claim }) => this.submissions.renewLease(claim, leaseUntil)));
    } catch (err) {
      this.options.log?.(`queue: renewing leases: ${(err as Error).message}`);
    }
  }

  private async perform(submission: Submission, claim: Claim): Promise<void> {
    try {
      const handler = this.handlers[submission.kind];
      if (!handler) {
        await this.fail(submission, claim, `no handler for submission kind ${submission.kind}`);
        return;
      }
      try {
        const eventId = await handler(submission);
        await this.record(claim, {
          status: "sent",
          eventId,
          leaseUntil: null,
          lastError: null,
          completedAt: new Date(),
        });
        this.options.onOutcome?.("sent");
      } catch (err) {
        const failure = classifyMatrixError(err);
        if (!failure.transient || submission.attempts >= this.options.maxAttempts) {
          await this.fail(submission, claim, failure.message);
          return;
        }
        const delay = Math.max(failure.retryAfterMs ?? 0, retryDelayMs(submission.attempts, this.options.retryBaseMs));
        this.options.log?.(
          `queue: submission ${submission.id} attempt ${submission.attempts} failed (${failure.message}); retrying in ${delay} ms`,
        );
        await this.record(claim, {
          leaseUntil: null,
          lastError: failure.message,
          nextAttemptAt: new Date(Date.now() + delay),
        });
        this.options.onOutcome?.("retried");
      }
    } catch (err) {
      // Recording failed (database down): the lease runs out and the row is claimed again.
      this.options.log?.(`queue: submission ${submission.id}: ${(err as Error).message}`);
    }
  }

  private async fail(submission: Submission, claim: Claim, message: string): Promise<void> {
    this.options.log?.(`queue: submission ${claim.id} failed permanently: ${message}`);
    const recorded = await this.record(claim, {
      status: "failed",
      leaseUntil: null,
      lastError: message,
      completedAt: new Date(),
    });
    this.options.onOutcome?.("failed");
    if (recorded) await this.options.onFailed?.(submission, message);
  }

  /** Records an outcome, unless the claim was lost meanwhile (then the new holder records its own); false then. */
  private async record(claim: Claim, outcome: Outcome): Promise<boolean> {
    const recorded = await this.submissions.record(claim, outcome);
    if (!recorded)
      this.options.log?.(
        `queue: submission ${claim.id} attempt ${claim.attempts} lost its claim; outcome not recorded`,
      );
    return recorded;
  }
}
