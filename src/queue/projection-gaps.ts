// The projection gap check. The read model learns of an event the worker sent only from the
// homeserver's push, whose retries back off while the service is down (and whose transaction a
// killed process may never have applied). The worker knows the event id of every event it
// sent, so an event not projected `graceMs` after it was sent is fetched from the homeserver and
// fed to the same projector; the projection converges on repeats, so an event the push brings
// as well is stored and applied once. A background pass: every interval and after every start.
import type { Db } from "../db/client.ts";
import type { BackgroundPass } from "../cluster/leader.ts";
import { PeriodicPass } from "../cluster/periodic-pass.ts";
import { PROJECTION_GAP_CHECK } from "../config/limits.ts";
import { classifyMatrixError } from "../matrix/errors.ts";
import type { Homeserver } from "../matrix/homeserver.ts";
import { storedStatuses, type EventStatus } from "../projection/matrix-event-store.ts";
import type { Projector } from "../projection/projector.ts";
import type { RoomEvent } from "../projection/room-event.ts";
import { pageRoomIds } from "../projection/room-store.ts";
import type { SubmissionPayload } from "./payloads.ts";
import { SubmissionStore, type SentPosition, type SentSubmission } from "./submission-store.ts";

/**
 * The submissions of a batch whose event the projection has not taken: not stored at all, or
 * stored and still waiting. A failed one was taken (and recorded for repair).
 */
export function unprojected(
  batch: readonly SentSubmission[],
  statuses: ReadonlyMap<string, EventStatus>,
): SentSubmission[] {
  return batch.filter((s) => {
    const status = statuses.get(s.eventId);
    return status === undefined || status === "waiting";
  });
}

/**
 * Where the next walk starts: past every submission of the batch (in its order) before the
 * first unresolved one, which is checked again next time, with all after it.
 */
export function resumeAfter(
  batch: readonly SentSubmission[],
  unresolved: ReadonlySet<string>,
  from: SentPosition,
): SentPosition {
  let position = from;
  for (const s of batch) {
    if (unresolved.has(s.id)) break;
    position = { completedAt: s.completedAt, id: s.id };
  }
  return position;
}

type Limits = { graceMs: number; intervalMs: number; lookbackMs: number; batch: number };

export class ProjectionGapCheck implements BackgroundPass {
  private readonly pass = new PeriodicPass(async () => {
    await this.run().catch((err) => this.log(`projection gaps: ${(err as Error).message}`));
  });
  private readonly submissions: SubmissionStore;
  /** Everything sent up to here is projected or was handed to the projector; null: a start, which looks back `lookbackMs`. */
  private position: SentPosition | null = null;

  constructor(
    private readonly db: Db,
    private readonly hs: Pick<Homeserver, "getEvent">,
    private readonly projector: Pick<Projector, "applyTransaction">,
    private readonly log: (message: string) => void,
    /** Called with the number of events a walk fetched and projected (metrics). */
    private readonly onFilled: (count: number) => void = () => {},
    private readonly limits: Limits = PROJECTION_GAP_CHECK,
  ) {
    this.submissions = new SubmissionStore(db);
  }

  start(): void {
    this.position = null;
    this.pass.start(this.limits.intervalMs);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** One walk up to `graceMs` before `now`; returns how many events it fetched and projected. */
  async run(now = new Date()): Promise<number> {
    const upTo = new Date(now.getTime() - this.limits.graceMs);
    let position = this.position ?? { completedAt: new Date(now.getTime() - this.limits.lookbackMs), id: "" };
    let filled = 0;
    for (;;) {
      const batch = await this.submissions.sentAfter(position, upTo, this.limits.batch);
      if (batch.length === 0) return filled;
      const gaps = unprojected(
        batch,
        await storedStatuses(
          this.db,
          batch.map((s) => s.eventId),
        ),
      );
      const unresolved = new Set<string>();
      const events: RoomEvent[] = [];
      for (const submission of gaps) {
        const event = await this.fetch(submission);
        // The homeserver is unreachable: this one and the rest wait for the next walk.
        if (event === "unreachable") {
          unresolved.add(submission.id);
          break;
        }
        if (event) events.push(event);
      }
      if (events.length > 0) {
        await this.projector.applyTransaction(events);
        filled += events.length;
        this.onFilled(events.length);
      }
      this.position = position = resumeAfter(batch, unresolved, position);
      if (unresolved.size > 0 || batch.length < this.limits.batch) return filled;
    }
  }

  /** The submission's event from the homeserver; null when none of its rooms has it (nothing to project). */
  private async fetch(submission: SentSubmission): Promise<RoomEvent | null | "unreachable"> {
    const { matrix } = JSON.parse(submission.payload) as SubmissionPayload;
    const rooms = matrix.roomId ? [matrix.roomId] : await pageRoomIds(this.db, submission.siteId, submission.pageSlug);
    for (const roomId of rooms) {
      try {
        const event = (await this.hs.getEvent(roomId, submission.eventId)) as unknown as RoomEvent;
        this.log(
          `projection gaps: event ${submission.eventId} of submission ${submission.id} was not pushed; fetched from the homeserver`,
        );
        return event;
      } catch (err) {
        const failure = classifyMatrixError(err);
        if (failure.transient) {
          this.log(`projection gaps: fetching event ${submission.eventId}: ${failure.message}; trying again later`);
          return "unreachable";
        }
      }
    }
    this.log(
      `projection gaps: event ${submission.eventId} of submission ${submission.id} is in none of its page's rooms; skipped`,
    );
    return null;
  }
}
