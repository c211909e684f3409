// Claiming queued submissions: each page's submissions form a lane performed in submission
// order, so only a lane's head (its oldest queued row) may be claimed, and only when it is due
// and nobody holds it. A head waiting out a retry, or leased to a worker, blocks its own lane
// and no other. The claim is one statement, so it is atomic on both providers; on PostgreSQL
// `FOR UPDATE SKIP LOCKED` lets instances claim side by side without waiting for each other.
import type { Db } from "../db/client.ts";
import type { Provider } from "../db/database-url.ts";
import { Prisma, type Submission } from "../db/generated/sqlite/client.ts";

/** Claims up to `limit` lane heads; returns them as claimed (attempts counts this attempt). */
export async function claimLaneHeads(db: Db, provider: Provider, now: Date, leaseUntil: Date, limit: number): Promise<Submission[]> {
  const lock = provider === "postgres" ? Prisma.sql`FOR UPDATE OF s SKIP LOCKED` : Prisma.empty;
  // The lease conditions are repeated in the UPDATE: on PostgreSQL a row locked and committed by
  // another claim between the subquery's snapshot and the update is re-checked against them.
  // RETURNING * reads back as Prisma reads the model (same column names and types, both providers).
  return db.$queryRaw<Submission[]>`
    UPDATE "Submission" SET "leaseUntil" = ${leaseUntil}, "attempts" = "attempts" + 1, "updatedAt" = ${now}
    WHERE "status" = 'queued' AND ("leaseUntil" IS NULL OR "leaseUntil" < ${now}) AND "id" IN (
      SELECT s."id" FROM "Submission" s
      WHERE s."status" = 'queued' AND s."nextAttemptAt" <= ${now} AND (s."leaseUntil" IS NULL OR s."leaseUntil" < ${now})
        AND NOT EXISTS (
          SELECT 1 FROM "Submission" e
          WHERE e."status" = 'queued' AND e."siteId" = s."siteId" AND e."pageSlug" = s."pageSlug"
            AND (e."createdAt" < s."createdAt" OR (e."createdAt" = s."createdAt" AND e."id" < s."id"))
        )
      ORDER BY s."createdAt", s."id"
      LIMIT ${limit}
      ${lock}
    )
    RETURNING *`;
}

let lastStamp = 0;

/**
 * The submission time that orders a lane: strictly increasing within this process, so two
 * submissions to one page never tie (the id would then decide, not the order they came in).
 * Taken inside the storing transaction, after its first write: on SQLite that holds the write
 * lock, so stamp order is commit order.
 */
export function submissionStamp(): Date {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return new Date(lastStamp);
}
