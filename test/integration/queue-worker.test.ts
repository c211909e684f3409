// The queue worker on a real SQLite database: success, transient failures retried with
// backoff, permanent failures recorded, leases. The handlers here stand in for the homeserver
// (this tests the worker alone); the last test uses a real, unreachable homeserver.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { MatrixError } from "matrix-bot-sdk";
import { migrate } from "../../src/db/migrations.ts";
import { openDatabase, type Db } from "../../src/db/client.ts";
import { QueueWorker, type SubmissionHandler } from "../../src/queue/worker.ts";
import { runMaintenance } from "../../src/server/maintenance.ts";
import { eventually, freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";

let db: Db;
before(async () => {
  const { url } = await freshDatabase("sqlite");
  await migrate(url);
  db = await openDatabase(url);
  await db.site.create({ data: { id: "q", source: "config" } });
});
after(() => db?.$disconnect());

const enqueue = async (kind = "test") => {
  const id = randomUUID();
  await db.submission.create({ data: { id, kind, siteId: "q", pageSlug: "p", authorPublicKey: "k", payload: "{}" } });
  return id;
};
const worker = (handler: SubmissionHandler, maxAttempts = 3) => new QueueWorker(db, { test: handler }, { pollIntervalMs: 10, maxAttempts, retryBaseMs: 1000 });

test("a successful send records the event id", async () => {
  const id = await enqueue();
  assert.equal(await worker(async () => "$sent").processNext(), true);
  const row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "sent");
  assert.equal(row.eventId, "$sent");
  assert.equal(row.attempts, 1);
  assert.equal(row.leaseUntil, null);
  assert.equal(await worker(async () => "$x").processNext(), false, "nothing else is due");
});

test("transient failures are retried later with backoff, then fail after max attempts", async () => {
  const id = await enqueue();
  const w = worker(async () => {
    throw new MatrixError({ errcode: "M_UNKNOWN", error: "bad gateway" }, 502);
  }, 2);
  const start = Date.now();
  await w.processNext();
  let row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "queued");
  assert.equal(row.attempts, 1);
  assert.match(row.lastError ?? "", /502/);
  assert.ok(row.nextAttemptAt.getTime() >= start + 1000, "retry is scheduled at least the base delay later");
  assert.equal(await w.processNext(), false, "not due yet");
  await w.processNext(new Date(row.nextAttemptAt.getTime() + 1));
  row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "failed");
  assert.equal(row.attempts, 2);
});

test("the server's retry_after_ms is honoured", async () => {
  const id = await enqueue();
  await worker(async () => {
    throw new MatrixError({ errcode: "M_LIMIT_EXCEEDED", error: "slow down", retry_after_ms: 60_000 }, 429);
  }).processNext();
  const row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "queued");
  assert.ok(row.nextAttemptAt.getTime() >= Date.now() + 55_000);
  await db.submission.update({ where: { id }, data: { status: "failed" } });
});

test("permanent failures are recorded on the row at once", async () => {
  const id = await enqueue();
  await worker(async () => {
    throw new MatrixError({ errcode: "M_FORBIDDEN", error: "not allowed" }, 403);
  }).processNext();
  const row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "failed");
  assert.match(row.lastError ?? "", /M_FORBIDDEN/);
  assert.ok(row.completedAt);
});

test("a leased row is not taken by a second worker until its lease expires", async () => {
  const id = await enqueue();
  await db.submission.update({ where: { id }, data: { leaseUntil: new Date(Date.now() + 60_000) } });
  let calls = 0;
  const w = worker(async () => {
    calls++;
    return "$late";
  });
  assert.equal(await w.processNext(), false);
  assert.equal(calls, 0);
  await w.processNext(new Date(Date.now() + 61_000));
  assert.equal(calls, 1);
  assert.equal((await db.submission.findUniqueOrThrow({ where: { id } })).status, "sent");
});

test("maintenance prunes expired idempotency records, spent challenges, old live events and old sent submissions", async () => {
  const { IdempotencyStore } = await import("../../src/domain/idempotency.ts");
  const { Challenges } = await import("../../src/domain/challenges.ts");
  const old = new Date(Date.now() - 2 * 24 * 3600_000);
  await db.idempotencyRecord.create({ data: { authorPublicKey: "k", key: "old", fingerprint: "f", status: 202, body: "{}", createdAt: old, expiresAt: new Date(old.getTime() + 24 * 3600_000) } });
  await db.idempotencyRecord.create({ data: { authorPublicKey: "k", key: "new", fingerprint: "f", status: 202, body: "{}", expiresAt: new Date(Date.now() + 3600_000) } });
  await db.consumedChallenge.create({ data: { challenge: "old", expiresAt: old } });
  await db.liveEvent.create({ data: { siteId: "q", pageSlug: "p", type: "message_created", createdAt: old } });
  await db.liveEvent.create({ data: { siteId: "q", pageSlug: "p", type: "message_created" } });
  const longAgo = new Date(Date.now() - 31 * 24 * 3600_000);
  await db.submission.createMany({
    data: [
      { id: "old-sent", kind: "test", siteId: "q", pageSlug: "p", authorPublicKey: "k", payload: "{}", status: "sent", completedAt: longAgo },
      { id: "old-failed", kind: "test", siteId: "q", pageSlug: "p", authorPublicKey: "k", payload: "{}", status: "failed", completedAt: longAgo },
    ],
  });
  const { SeenSignatures } = await import("../../src/domain/seen-signatures.ts");
  await db.seenRequestSignature.create({ data: { digest: "old", expiresAt: old } });
  const services = { db, idempotency: new IdempotencyStore(db), challenges: new Challenges(db, Buffer.alloc(32), 8), siteWriteAuth: { signatures: new SeenSignatures(db) } } as never;
  await runMaintenance(services);
  assert.deepEqual((await db.idempotencyRecord.findMany()).map((r) => r.key), ["new"]);
  assert.equal(await db.consumedChallenge.count(), 0);
  assert.equal(await db.seenRequestSignature.count(), 0, "request signatures past their window are pruned");
  assert.equal(await db.liveEvent.count(), 1);
  assert.equal(await db.submission.count({ where: { id: "old-sent" } }), 0, "old sent submissions are pruned");
  assert.equal(await db.submission.count({ where: { id: "old-failed" } }), 1, "failed ones stay for the operator");
});

test("with the homeserver unreachable, a real submission stays queued with the error recorded", async () => {
  const siteId = uniqueSiteId("down");
  const service = await startTestService({ sites: { [siteId]: { origins: [TEST_ORIGIN] } }, overrides: { "matrix.homeserver_url": "http://127.0.0.1:9", "server.listen_port": 0 } });
  try {
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    const res = await visitor.post(`/api/v1/sites/${siteId}/pages/p/comments`, await visitor.commentBody(siteId, "p", "waiting"), { "idempotency-key": "down" });
    assert.equal(res.status, 202);
    const { submission_id } = (await res.json()) as { submission_id: string };
    const row = await eventually(async () => service.services.db.submission.findFirst({ where: { id: submission_id, attempts: { gte: 1 }, leaseUntil: null } }), 10_000, "a failed attempt");
    assert.equal(row.status, "queued");
    assert.match(row.lastError ?? "", /ECONNREFUSED|fetch failed|connect/i);
    const health = (await (await fetch(`${service.url}/health`)).json()) as any;
    assert.equal(health.status, "degraded");
    assert.equal(health.homeserver.status, "unavailable");
    assert.equal(health.queue.queued, 1);
  } finally {
    await service.stop();
  }
});
