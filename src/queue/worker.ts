// The queue worker: takes due submissions, performs them against the homeserver, and records
// the outcome on the row. Rows are leased, so several instances can share one queue and a
// crashed worker's row is picked up again once its lease runs out.
import type { Db } from "../db/client.ts";
import type { Submission } from "../db/generated/sqlite/client.ts";
import { classifyMatrixError } from "../matrix/errors.ts";
import { retryDelayMs } from "./backoff.ts";

const LEASE_MS = 60_000;

/** Performs one submission; returns the Matrix event id it produced. */
export type SubmissionHandler = (submission: Submission) => Promise<string | null>;

export interface WorkerOptions {
  pollIntervalMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  log?: (message: string) => void;
}

export class QueueWorker {
  private running = false;
  private wakeUp: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly handlers: Record<string, SubmissionHandler>,
    private readonly options: WorkerOptions,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
  }

  /** Called when a submission was queued, so it is sent without waiting for the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.processNext();
      } catch (err) {
        this.options.log?.(`queue: ${(err as Error).message}`);
      }
      if (!worked && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.pollIntervalMs);
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeUp = null;
      }
    }
  }

  /** Leases and performs the oldest due submission; false when there is none. */
  async processNext(now = new Date()): Promise<boolean> {
    const due = await this.db.submission.findFirst({
      where: { status: "queued", nextAttemptAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
      orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }],
    });
    if (!due) return false;
    const leased = await this.db.submission.updateMany({
      where: { id: due.id, status: "queued", leaseUntil: due.leaseUntil },
      data: { leaseUntil: new Date(now.getTime() + LEASE_MS), attempts: { increment: 1 } },
    });
    if (leased.count === 0) return true; // another worker took it
    await this.perform({ ...due, attempts: due.attempts + 1 });
    return true;
  }

  private async perform(submission: Submission): Promise<void> {
    const handler = this.handlers[submission.kind];
    if (!handler) {
      await this.fail(submission, `no handler for submission kind ${submission.kind}`);
      return;
    }
    try {
      const eventId = await handler(submission);
      await this.db.submission.update({
        where: { id: submission.id },
        data: { status: "sent", eventId, leaseUntil: null, lastError: null, completedAt: new Date() },
      });
    } catch (err) {
      const failure = classifyMatrixError(err);
      if (!failure.transient || submission.attempts >= this.options.maxAttempts) {
        await this.fail(submission, failure.message);
        return;
      }
      const delay = Math.max(failure.retryAfterMs ?? 0, retryDelayMs(submission.attempts, this.options.retryBaseMs));
      this.options.log?.(`queue: submission ${submission.id} attempt ${submission.attempts} failed (${failure.message}); retrying in ${delay} ms`);
      await this.db.submission.update({
        where: { id: submission.id },
        data: { leaseUntil: null, lastError: failure.message, nextAttemptAt: new Date(Date.now() + delay) },
      });
    }
  }

  private async fail(submission: Submission, message: string): Promise<void> {
    this.options.log?.(`queue: submission ${submission.id} failed permanently: ${message}`);
    await this.db.submission.update({
      where: { id: submission.id },
      data: { status: "failed", leaseUntil: null, lastError: message, completedAt: new Date() },
    });
  }
}
