// The AS bot's durable inbox: events the bot has to handle are stored while the transaction
// that brought them is applied, and handled after it is acknowledged, so a slow or failing
// homeserver call never holds up projection. Rows are leased (instances may share the
// database) and deleted once handled; a transient failure is retried with backoff, and a crash
// leaves the row to be handled after the restart.
import { isUniqueViolation, type Db } from "../db/client.ts";
import { classifyMatrixError } from "../matrix/errors.ts";
import { retryDelayMs } from "../queue/backoff.ts";
import type { RoomEvent } from "../projection/room-event.ts";

const LEASE_MS = 60_000;
/** How often a running bot looks for rows it was not woken for (retries, rows another instance stored). */
const POLL_INTERVAL_MS = 2_000;

export interface BotInboxOptions {
  maxAttempts: number;
  retryBaseMs: number;
  log: (message: string) => void;
}

export class BotInbox {
  private running = false;
  private draining: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly handle: (event: RoomEvent) => Promise<void>,
    private readonly options: BotInboxOptions,
  ) {}

  /** Stores an event for the bot (a repeated push stores nothing twice) and wakes the bot. */
  async add(event: RoomEvent): Promise<void> {
    try {
      await this.db.botInboxEvent.create({ data: { eventId: event.event_id, roomId: event.room_id, json: JSON.stringify(event) } });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    this.wake();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer = setInterval(() => this.wake(), POLL_INTERVAL_MS);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    await this.draining;
  }

  /** Handles every due row, in the background; a no-op unless started (API-only instances only store). */
  wake(): void {
    if (!this.running) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
    });
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      try {
        while (this.running && (await this.processNext())) {}
      } catch (err) {
        this.options.log(`bot: inbox: ${(err as Error).message}`);
      }
    } while (this.again && this.running);
  }

  /** Leases and handles the oldest due row; false when there is none. */
  async processNext(now = new Date()): Promise<boolean> {
    const due = await this.db.botInboxEvent.findFirst({ where: { OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] }, orderBy: { seq: "asc" } });
    if (!due) return false;
    const leased = await this.db.botInboxEvent.updateMany({
      where: { seq: due.seq, leaseUntil: due.leaseUntil },
      data: { leaseUntil: new Date(now.getTime() + LEASE_MS), attempts: { increment: 1 } },
    });
    if (leased.count === 0) return true; // another instance took it
    const attempts = due.attempts + 1;
    try {
      await this.handle(JSON.parse(due.json) as RoomEvent);
    } catch (err) {
      const failure = classifyMatrixError(err);
      if (failure.transient && attempts < this.options.maxAttempts) {
        const delay = Math.max(failure.retryAfterMs ?? 0, retryDelayMs(attempts, this.options.retryBaseMs));
        this.options.log(`bot: event ${due.eventId} attempt ${attempts} failed (${failure.message}); retrying in ${delay} ms`);
        await this.db.botInboxEvent.update({ where: { seq: due.seq }, data: { leaseUntil: new Date(Date.now() + delay) } });
        return true;
      }
      this.options.log(`bot: event ${due.eventId} dropped after ${attempts} attempt(s): ${failure.message}`);
    }
    await this.db.botInboxEvent.deleteMany({ where: { seq: due.seq } });
    return true;
  }
}
