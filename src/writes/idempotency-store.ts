// Idempotency records: a write made with an Idempotency-Key stores its response in the same
// transaction as its effect; a retry with the same key and request replays it for 24 hours.
import type { Db, Tx } from "../db/client.ts";
import { driverStatements } from "../db/client.ts";
import { asDate } from "../db/driver-statements.ts";
import { DomainError } from "../core/errors.ts";
import type { IdempotencyScope } from "../core/request.ts";
import { IDEMPOTENCY_RETENTION_MS } from "../security/idempotency.ts";

export interface StoredResponse {
  status: number;
  body: unknown;
}

export class IdempotencyStore {
  constructor(private readonly db: Db) {}

  /** The stored response for a matching retry; 409 when the key was used for another request. */
  async replay(author: string, scope: IdempotencyScope, now = new Date()): Promise<StoredResponse | null> {
    // On every keyed write: a statement prepared on the driver (src/db/driver-statements.ts), which reads
    // committed rows only, as both callers want (before the write, and after losing a race to a commit).
    const [record] = await driverStatements(this.db).all<{
      fingerprint: string;
      status: number;
      body: string;
      expiresAt: string | Date;
    }>(
      `SELECT "fingerprint", "status", "body", "expiresAt" FROM "IdempotencyRecord" WHERE "authorPublicKey" = $1 AND "key" = $2`,
      [author, scope.key],
    );
    if (!record || asDate(record.expiresAt)! <= now) return null;
    if (record.fingerprint !== scope.fingerprint) {
      throw new DomainError(
        "idempotency-key-reused",
        409,
        "This Idempotency-Key was already used for a different request.",
      );
    }
    return { status: record.status, body: JSON.parse(record.body) };
  }

  /** Whether a live record holds this key of the author (whatever request it answered). */
  async isRecorded(author: string, key: string, now = new Date()): Promise<boolean> {
    const [record] = await driverStatements(this.db).all<{ expiresAt: string | Date }>(
      `SELECT "expiresAt" FROM "IdempotencyRecord" WHERE "authorPublicKey" = $1 AND "key" = $2`,
      [author, key],
    );
    return record !== undefined && asDate(record.expiresAt)! > now;
  }

  /** Records the response inside the transaction that commits the write. */
  async record(
    tx: Tx,
    author: string,
    scope: IdempotencyScope,
    response: StoredResponse,
    now = new Date(),
  ): Promise<void> {
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS);
    // One statement: an expired record for the same key is replaced (the key is free again after
    // 24 hours); a live one, which a concurrent request with the same key committed first, is
    // left as it is, and this write is rolled back: the caller then replays the winner's response.
    const stored = await tx.$executeRaw`
      INSERT INTO "IdempotencyRecord" ("authorPublicKey", "key", "fingerprint", "status", "body", "createdAt", "expiresAt")
      VALUES (${author}, ${scope.key}, ${scope.fingerprint}, ${response.status}, ${JSON.stringify(response.body)}, ${now}, ${expiresAt})
      ON CONFLICT ("authorPublicKey", "key") DO UPDATE SET "fingerprint" = excluded."fingerprint", "status" = excluded."status",
        "body" = excluded."body", "createdAt" = excluded."createdAt", "expiresAt" = excluded."expiresAt"
      WHERE "IdempotencyRecord"."expiresAt" <= excluded."createdAt"`;
    if (stored === 0) throw new Error(`Idempotency-Key ${scope.key} was recorded by a concurrent request`);
  }

  async pruneExpired(now = new Date()): Promise<void> {
    await this.db.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
