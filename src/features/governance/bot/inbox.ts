// The AS bot's durable inbox: events the bot has to handle are stored while the transaction
// that brought them is applied, and handled after it is acknowledged, so a slow or failing
// homeserver call never holds up projection. Rows are leased (instances may share the
// database) and deleted once handled; a transient failure is retried with backoff, and a crash
// leaves the row to be handled after the restart.
import { PASS_INTERVALS_MS } from "../../../config/limits.ts";
import { isUniqueViolation, type Db } from "../../../db/client.ts";
import { classifyMatrixError } from "../../../matrix/errors.ts";
import { retryDelayMs } from "../../../queue/backoff.ts";
import type { RoomEvent } from "../../../projection/room-event.ts";
import { PeriodicPass } from "../../../cluster/periodic-pass.ts";
import { BotInboxStore } from "./bot-inbox-store.ts";

const LEASE_MS = 60_000;
export interface BotInboxOptions {
  maxAttempts: number;
  retryBaseMs: number;
  log: (message: string) => void;
}

export class BotInbox {
  /** Woken by every stored event and polled; not started, it only stores (an API-only instance). */
  private readonly pass = new PeriodicPass(() => this.drain());
  private readonly store: BotInboxStore;

  constructor(
    db: Db,
    private readonly handle: (event: RoomEvent) => Promise<void>,
    private readonly options: BotInboxOptions,
  ) {
    this.store = new BotInboxStore(db);
  }

  /** Stores an event for the bot (a repeated push stores nothing twice) and wakes the bot. */
  async add(event: RoomEvent): Promise<void> {
    try {
      await this.store.add(event.event_id, event.room_id, JSON.stringify(event));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    this.pass.kick();
  }

  start(): void {
    this.pass.start(PASS_INTERVALS_MS.botInbox);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** Handles every due row; stops between rows once the inbox is stopped. Never throws. */
  private async drain(): Promise<void> {
    try {
      while (this.pass.started && (await this.processNext())) {}
    } catch (err) {
      this.options.log(`bot: inbox: ${(err as Error).message}`);
    }
  }

  /** Leases and handles the oldest due row; false when there is none. */
  async processNext(now = new Date()): Promise<boolean> {
    const due = await this.store.due(now);
    if (!due) return false;
    if (!(await this.store.lease(due.seq, due.leaseUntil, new Date(now.getTime() + LEASE_MS)))) return true; // another instance took it
    const attempts = due.attempts + 1;
    try {
      await this.handle(JSON.parse(due.json) as RoomEvent);
    } catch (err) {
      const failure = classifyMatrixError(err);
      if (failure.transient && attempts < this.options.maxAttempts) {
        const delay = Math.max(failure.retryAfterMs ?? 0, retryDelayMs(attempts, this.options.retryBaseMs));
        this.options.log(
          `bot: event ${due.eventId} attempt ${attempts} failed (${failure.message}); retrying in ${delay} ms`,
        );
        await this.store.retryAt(due.seq, new Date(Date.now() + delay));
        return true;
      }
      this.options.log(`bot: event ${due.eventId} dropped after ${attempts} attempt(s): ${failure.message}`);
    }
    await this.store.remove(due.seq);
    return true;
  }
}
