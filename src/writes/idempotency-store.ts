// Idempotency records: a write made with an Idempotency-Key stores its response in the same
// transaction as its effect; a retry with the same key and request replays it for 24 hours.
import type { Db, Tx } from "../db/client.ts";
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
    const record = await this.db.idempotencyRecord.findUnique({ where: { authorPublicKey_key: { authorPublicKey: author, key: scope.key } } });
    if (!record || record.expiresAt <= now) return null;
    if (record.fingerprint !== scope.fingerprint) {
      throw new DomainError("idempotency-key-reused", 409, "This Idempotency-Key was already used for a different request.");
    }
    return { status: record.status, body: JSON.parse(record.body) };
  }

  /** Records the response inside the transaction that commits the write. */
  async record(tx: Tx, author: string, scope: IdempotencyScope, response: StoredResponse, now = new Date()): Promise<void> {
    const data = {
      fingerprint: scope.fingerprint,
      status: response.status,
      body: JSON.stringify(response.body),
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    };
    // An expired record for the same key is replaced: the key is free again after 24 hours.
    await tx.idempotencyRecord.deleteMany({ where: { authorPublicKey: author, key: scope.key, expiresAt: { lte: now } } });
    // A concurrent request with the same key that committed first makes this create fail,
    // rolling this write back; the caller then replays the winner's response.
    await tx.idempotencyRecord.create({ data: { authorPublicKey: author, key: scope.key, ...data } });
  }

  async pruneExpired(now = new Date()): Promise<void> {
    await this.db.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
