// The Submission table: storing accepted writes, claiming queued ones, recording outcomes.
//
// Claiming: each page's submissions form a lane performed in submission order, so only a
// lane's head (its oldest queued row) may be claimed, and only when it is due and nobody holds
// it. A head waiting out a retry, or leased to a worker, blocks its own lane and no other. The
// claim is one statement, so it is atomic on both providers; on PostgreSQL
// `FOR UPDATE SKIP LOCKED` lets instances claim side by side without waiting for each other.
// Claims, lease renewals and outcomes, a few of each submission, run on the driver, prepared once
// (src/db/driver-statements.ts `run`).
import type { Db, Tx } from "../db/client.ts";
import type { Provider } from "../db/database-url.ts";
import { driverStatements, Prisma, type Submission } from "../db/client.ts";
import { asDate, type DriverStatements } from "../db/driver-statements.ts";

/** A claim is its row on its attempt: the attempt number tells this claim from any later one. */
export interface Claim {
  id: string;
  attempts: number;
}

/** A place in the sent submissions' completion order. */
export interface SentPosition {
  completedAt: Date;
  id: string;
}

/** A sent submission as the projection gap check reads it. */
export interface SentSubmission extends SentPosition {
  siteId: string;
  pageSlug: string;
  payload: string;
  eventId: string;
}

/** What performing a claim leaves on its row. */
export interface Outcome {
  status?: string;
  eventId?: string | null;
  leaseUntil: null;
  lastError: string | null;
  completedAt?: Date;
  nextAttemptAt?: Date;
}

/** The row as this claim left it: still queued, on the claim's attempt ($1 the id, $2 the attempt). */
const HELD = `"id" = $1 AND "attempts" = $2 AND "status" = 'queued'`;

/** The lane heads' claim: leases and counts the attempt of up to $3 rows, at $1 (now) until $2. */
const claimSql = (lock: string) => `
    UPDATE "Submission" SET "leaseUntil" = $2, "attempts" = "attempts" + 1, "updatedAt" = $1
    WHERE "status" = 'queued' AND ("leaseUntil" IS NULL OR "leaseUntil" < $1) AND "id" IN (
      SELECT s."id" FROM "Submission" s
      WHERE s."status" = 'queued' AND s."nextAttemptAt" <= $1 AND (s."leaseUntil" IS NULL OR s."leaseUntil" < $1)
        AND NOT EXISTS (
          SELECT 1 FROM "Submission" e
          WHERE e."status" = 'queued' AND e."siteId" = s."siteId" AND e."pageSlug" = s."pageSlug"
            AND (e."createdAt" < s."createdAt" OR (e."createdAt" = s."createdAt" AND e."id" < s."id"))
        )
      ORDER BY s."createdAt", s."id"
      LIMIT $3
      ${lock}
    )
    RETURNING *`;
const CLAIM: Record<Provider, string> = { sqlite: claimSql(""), postgres: claimSql("FOR UPDATE OF s SKIP LOCKED") };

/** A Submission row as the drivers return it. */
type SubmissionRow = Omit<Submission, "nextAttemptAt" | "leaseUntil" | "createdAt" | "updatedAt" | "completedAt"> &
  Record<"nextAttemptAt" | "createdAt" | "updatedAt", string | Date> &
  Record<"leaseUntil" | "completedAt", string | Date | null>;

const toSubmission = (row: SubmissionRow): Submission => ({
  ...row,
  nextAttemptAt: asDate(row.nextAttemptAt)!,
  leaseUntil: asDate(row.leaseUntil),
  createdAt: asDate(row.createdAt)!,
  updatedAt: asDate(row.updatedAt)!,
  completedAt: asDate(row.completedAt),
});

export class SubmissionStore {
  constructor(private readonly db: Db) {}

  private get driver(): DriverStatements {
    return driverStatements(this.db);
  }

  /** Stores an accepted write, in the transaction that spends its challenge. */
  async add(tx: Tx, data: Prisma.SubmissionUncheckedCreateInput): Promise<void> {
    await tx.submission.create({ data });
  }

  /** Claims up to `limit` lane heads; returns them as claimed (attempts counts this attempt). */
  async claimLaneHeads(provider: Provider, now: Date, leaseUntil: Date, limit: number): Promise<Submission[]> {
    // The lease conditions are repeated in the UPDATE: on PostgreSQL a row locked and committed by
    // another claim between the subquery's snapshot and the update is re-checked against them.
    const { rows } = await this.driver.run<SubmissionRow>(CLAIM[provider], [now, leaseUntil, limit]);
    return rows.map(toSubmission);
  }

  /** Extends a claim's lease, if the claim still holds its row. */
  async renewLease(claim: Claim, leaseUntil: Date): Promise<void> {
    await this.driver.run(`UPDATE "Submission" SET "leaseUntil" = $3, "updatedAt" = $4 WHERE ${HELD}`, [
      claim.id,
      claim.attempts,
      leaseUntil,
      new Date(),
    ]);
  }

  /** Records an outcome unless the claim was lost meanwhile; false when it was. */
  async record(claim: Claim, outcome: Outcome): Promise<boolean> {
    // One statement text per outcome shape (sent, retried, failed), each prepared once.
    const columns = (Object.keys(outcome) as (keyof Outcome)[]).filter((column) => outcome[column] !== undefined);
    const set = [...columns, "updatedAt"].map((column, i) => `"${column}" = $${i + 3}`).join(", ");
    const { count } = await this.driver.run(`UPDATE "Submission" SET ${set} WHERE ${HELD}`, [
      claim.id,
      claim.attempts,
      ...columns.map((c) => outcome[c]),
      new Date(),
    ]);
    return count > 0;
  }

  /** The event the projection already has from this submission (an earlier attempt's), if any. */
  async projectedEventId(submissionId: string): Promise<string | null> {
    const projected = await this.db.comment.findFirst({ where: { submissionId }, select: { eventId: true } });
    return projected?.eventId ?? null;
  }

  /**
   * Sent submissions that produced an event, completed after `after` (by completion time, then
   * id) and no later than `upTo`, oldest first: what the projection gap check walks.
   */
  sentAfter(after: SentPosition, upTo: Date, limit: number): Promise<SentSubmission[]> {
    return this.db.submission.findMany({
      where: {
        status: "sent",
        eventId: { not: null },
        completedAt: { lte: upTo },
        OR: [{ completedAt: { gt: after.completedAt } }, { completedAt: after.completedAt, id: { gt: after.id } }],
      },
      orderBy: [{ completedAt: "asc" }, { id: "asc" }],
      take: limit,
      select: { id: true, siteId: true, pageSlug: true, payload: true, eventId: true, completedAt: true },
    }) as Promise<SentSubmission[]>;
  }

  /** A submission by id, with what a GraphQL selection includes (the Prisma plugin's `query`). */
  byId(id: string, query: Omit<Prisma.SubmissionFindUniqueArgs, "where">): Promise<Submission | null> {
    return this.db.submission.findUnique({ ...query, where: { id } });
  }

  /** Deletes the sent submissions completed before `before`. */
  async pruneSent(before: Date): Promise<void> {
    await this.db.submission.deleteMany({ where: { status: "sent", completedAt: { lt: before } } });
  }
}
