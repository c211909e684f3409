// The queue worker on a real SQLite database: success, transient failures retried with
// backoff, permanent failures recorded, leases. The handlers here stand in for the homeserver
// (this tests the worker alone); the last test uses a real, unreachable homeserver.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { MatrixError } from "matrix-bot-sdk";
import { migrate } from "../../src/db/migrations.ts";
import { openDatabase, type Db } from "../../src/db/client.ts";
import type { Submission } from "../../src/db/generated/sqlite/client.ts";
import { submissionStamp } from "../../src/queue/claim.ts";
import { QueueWorker, type SubmissionHandler } from "../../src/queue/worker.ts";
import { runMaintenance } from "../../src/app/maintenance-pass.ts";
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
const worker = (handler: SubmissionHandler, maxAttempts = 3) =>
  new QueueWorker(
    db,
    { test: handler },
    { pollIntervalMs: 10, maxAttempts, retryBaseMs: 1000, concurrency: 1, leaseMs: 60_000, provider: "sqlite" },
  );

test("a successful send records the event id", async () => {
  const id = await enqueue();
  assert.equal(await worker(async () => "$sent").runOnce(), 1);
  const row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "sent");
  assert.equal(row.eventId, "$sent");
  assert.equal(row.attempts, 1);
  assert.equal(row.leaseUntil, null);
  assert.equal(await worker(async () => "$x").runOnce(), 0, "nothing else is due");
});

test("transient failures are retried later with backoff, then fail after max attempts", async () => {
  const id = await enqueue();
  const w = worker(async () => {
    throw new MatrixError({ errcode: "M_UNKNOWN", error: "bad gateway" }, 502);
  }, 2);
  const start = Date.now();
  await w.runOnce();
  let row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "queued");
  assert.equal(row.attempts, 1);
  assert.match(row.lastError ?? "", /502/);
  assert.ok(row.nextAttemptAt.getTime() >= start + 1000, "retry is scheduled at least the base delay later");
  assert.equal(await w.runOnce(), 0, "not due yet");
  await w.runOnce(new Date(row.nextAttemptAt.getTime() + 1));
  row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "failed");
  assert.equal(row.attempts, 2);
});

test("the server's retry_after_ms is honoured", async () => {
  const id = await enqueue();
  await worker(async () => {
    throw new MatrixError({ errcode: "M_LIMIT_EXCEEDED", error: "slow down", retry_after_ms: 60_000 }, 429);
  }).runOnce();
  const row = await db.submission.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "queued");
  assert.ok(row.nextAttemptAt.getTime() >= Date.now() + 55_000);
  await db.submission.update({ where: { id }, data: { status: "failed" } });
});

test("permanent failures are recorded on the row at once", async () => {
  const id = await enqueue();
  await worker(async () => {
    throw new MatrixError({ errcode: "M_FORBIDDEN", error: "not allowed" }, 403);
  }).runOnce();
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
  assert.equal(await w.runOnce(), 0);
  assert.equal(calls, 0);
  await w.runOnce(new Date(Date.now() + 61_000));
  assert.equal(calls, 1);
  assert.equal((await db.submission.findUniqueOrThrow({ where: { id } })).status, "sent");
});

test("maintenance prunes expired idempotency records, spent challenges, old live events, old sent submissions and old delivered webhooks", async () => {
  const { IdempotencyStore } = await import("../../src/writes/idempotency-store.ts");
  const { Challenges } = await import("../../src/writes/challenge-store.ts");
  const old = new Date(Date.now() - 2 * 24 * 3600_000);
  await db.idempotencyRecord.create({
    data: {
      authorPublicKey: "k",
      key: "old",
      fingerprint: "f",
      status: 202,
      body: "{}",
      createdAt: old,
      expiresAt: new Date(old.getTime() + 24 * 3600_000),
    },
  });
  await db.idempotencyRecord.create({
    data: {
      authorPublicKey: "k",
      key: "new",
      fingerprint: "f",
      status: 202,
      body: "{}",
      expiresAt: new Date(Date.now() + 3600_000),
    },
  });
  await db.consumedChallenge.create({ data: { challenge: "old", expiresAt: old } });
  await db.liveEvent.create({ data: { siteId: "q", pageSlug: "p", type: "message_created", createdAt: old } });
  await db.liveEvent.create({ data: { siteId: "q", pageSlug: "p", type: "message_created" } });
  const longAgo = new Date(Date.now() - 31 * 24 * 3600_000);
  await db.submission.createMany({
    data: [
      {
        id: "old-sent",
        kind: "test",
        siteId: "q",
        pageSlug: "p",
        authorPublicKey: "k",
        payload: "{}",
        status: "sent",
        completedAt: longAgo,
      },
      {
        id: "old-failed",
        kind: "test",
        siteId: "q",
        pageSlug: "p",
        authorPublicKey: "k",
        payload: "{}",
        status: "failed",
        completedAt: longAgo,
      },
    ],
  });
  await db.webhookEndpoint.create({
    data: { id: "ep", siteId: "q", url: "https://hooks.example/", source: "api", secret: "s" },
  });
  const delivery = (messageId: string, status: string, completedAt: Date | null) => ({
    endpointId: "ep",
    siteId: "q",
    pageSlug: "p",
    messageId,
    eventType: "comment.created",
    commentEventId: `$${messageId}`,
    status,
    completedAt,
  });
  await db.webhookDelivery.createMany({
    data: [
      delivery("old-delivered", "delivered", longAgo),
      delivery("new-delivered", "delivered", new Date()),
      delivery("old-failed", "failed", longAgo),
      delivery("pending", "pending", null),
      delivery("old-skipped", "skipped", longAgo),
      delivery("new-skipped", "skipped", new Date()),
    ],
  });
  const { SeenSignatures } = await import("../../src/features/sites/seen-signature-store.ts");
  await db.seenRequestSignature.create({ data: { digest: "old", expiresAt: old } });
  const services = {
    db,
    idempotency: new IdempotencyStore(db),
    challenges: new Challenges(db, Buffer.alloc(32), 8),
    siteWriteAuth: { signatures: new SeenSignatures(db) },
  } as never;
  await runMaintenance(services);
  assert.deepEqual(
    (await db.idempotencyRecord.findMany()).map((r) => r.key),
    ["new"],
  );
  assert.equal(await db.consumedChallenge.count(), 0);
  assert.equal(await db.seenRequestSignature.count(), 0, "request signatures past their window are pruned");
  assert.equal(await db.liveEvent.count(), 1);
  assert.equal(await db.submission.count({ where: { id: "old-sent" } }), 0, "old sent submissions are pruned");
  assert.equal(await db.submission.count({ where: { id: "old-failed" } }), 1, "failed ones stay for the operator");
  assert.deepEqual(
    (await db.webhookDelivery.findMany({ orderBy: { id: "asc" } })).map((d) => d.messageId),
    ["new-delivered", "old-failed", "pending", "new-skipped"],
    "deliveries and skipped events older than 30 days leave the log; failed ones wait for their endpoint",
  );
});

test("with the homeserver unreachable, a real submission stays queued with the error recorded", async () => {
  const siteId = uniqueSiteId("down");
  const service = await startTestService({
    sites: { [siteId]: { origins: [TEST_ORIGIN] } },
    overrides: { "matrix.homeserver_url": "http://127.0.0.1:9", "server.listen_port": 0 },
  });
  try {
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    const res = await visitor.post(
      `/api/v1/sites/${siteId}/pages/p/comments`,
      await visitor.commentBody(siteId, "p", "waiting"),
      { "idempotency-key": "down" },
    );
    assert.equal(res.status, 202);
    const { submission_id } = (await res.json()) as { submission_id: string };
    const row = await eventually(
      async () =>
        service.services.db.submission.findFirst({
          where: { id: submission_id, attempts: { gte: 1 }, leaseUntil: null },
        }),
      10_000,
      "a failed attempt",
    );
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

test("a homeserver that accepts but never answers: the send times out and is retried like any failure", async () => {
  // Accepts connections and never answers on them.
  const held = new Set<Socket>();
  const silent = createServer((socket) => held.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const siteId = uniqueSiteId("silent");
  const service = await startTestService({
    sites: { [siteId]: { origins: [TEST_ORIGIN] } },
    overrides: {
      "matrix.homeserver_url": `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      "matrix.request_timeout_ms": 300,
      "server.listen_port": 0,
    },
  });
  try {
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    const res = await visitor.post(
      `/api/v1/sites/${siteId}/pages/p/comments`,
      await visitor.commentBody(siteId, "p", "into the void"),
      { "idempotency-key": "silent" },
    );
    assert.equal(res.status, 202);
    const { submission_id } = (await res.json()) as { submission_id: string };
    const row = await eventually(
      async () => service.services.db.submission.findFirst({ where: { id: submission_id, attempts: { gte: 2 } } }),
      20_000,
      "a retried attempt",
    );
    assert.equal(row.status, "queued");
    assert.match(row.lastError ?? "", /TIMEDOUT/);
  } finally {
    await service.stop();
    held.forEach((socket) => socket.destroy());
    silent.close();
  }
});

/** Queues `count` submissions for each page, in order; returns their ids per page. */
async function enqueueLanes(
  target: Db,
  siteId: string,
  pages: string[],
  count: number,
): Promise<Map<string, string[]>> {
  const lanes = new Map<string, string[]>(pages.map((p) => [p, []]));
  for (let i = 0; i < count; i++) {
    for (const pageSlug of pages) {
      const id = randomUUID();
      await target.submission.create({
        data: { id, kind: "test", siteId, pageSlug, authorPublicKey: "k", payload: "{}", createdAt: submissionStamp() },
      });
      lanes.get(pageSlug)!.push(id);
    }
  }
  return lanes;
}

/** A handler recording which submissions ran, in what order per page, and whether a page ever had two at once. */
function laneRecorder(gate: (s: Submission) => Promise<void> = async () => {}) {
  const performed = new Map<string, string[]>();
  const active = new Map<string, number>();
  const calls = new Map<string, number>();
  let overlap = false;
  const handler: SubmissionHandler = async (s) => {
    active.set(s.pageSlug, (active.get(s.pageSlug) ?? 0) + 1);
    if (active.get(s.pageSlug)! > 1) overlap = true;
    calls.set(s.id, (calls.get(s.id) ?? 0) + 1);
    await gate(s);
    await new Promise((r) => setImmediate(r));
    performed.set(s.pageSlug, [...(performed.get(s.pageSlug) ?? []), s.id]);
    active.set(s.pageSlug, active.get(s.pageSlug)! - 1);
    return `$${s.id}`;
  };
  return { handler, performed, calls, overlap: () => overlap };
}

const options = (concurrency: number, provider: "sqlite" | "postgres" = "sqlite") => ({
  pollIntervalMs: 10,
  maxAttempts: 3,
  retryBaseMs: 1000,
  concurrency,
  leaseMs: 60_000,
  provider,
});

test("a page's submissions run one at a time in submission order, pages run side by side", async () => {
  const pages = ["lane-a", "lane-b", "lane-c"];
  const lanes = await enqueueLanes(db, "q", pages, 5);
  // lane-a's first submission waits until lane-b's first has started: only parallel pages get past it.
  let bStarted!: () => void;
  const bRunning = new Promise<void>((r) => (bStarted = r));
  const rec = laneRecorder(async (s) => {
    if (s.id === lanes.get("lane-b")![0]) bStarted();
    if (s.id === lanes.get("lane-a")![0]) await bRunning;
  });
  const w = new QueueWorker(db, { test: rec.handler }, options(4));
  w.start();
  try {
    await eventually(
      async () => (await db.submission.count({ where: { pageSlug: { in: pages }, status: "queued" } })) === 0,
      20_000,
      "the lanes drained",
    );
  } finally {
    await w.stop();
  }
  for (const page of pages) assert.deepEqual(rec.performed.get(page), lanes.get(page), `${page} in submission order`);
  assert.equal(rec.overlap(), false, "never two of one page at once");
});

test("a head waiting out a retry blocks its own page only", async () => {
  const lanes = await enqueueLanes(db, "q", ["stuck", "free"], 3);
  const stuckHead = lanes.get("stuck")![0]!;
  let failHead = true;
  const rec = laneRecorder(async (s) => {
    if (s.id === stuckHead && failHead) throw new MatrixError({ errcode: "M_UNKNOWN", error: "room unavailable" }, 502);
  });
  const w = new QueueWorker(db, { test: rec.handler }, options(4));
  while ((await w.runOnce()) > 0);
  assert.deepEqual(rec.performed.get("free"), lanes.get("free"), "the other page drained");
  assert.equal(rec.performed.get("stuck"), undefined, "nothing overtook the failed head");
  const head = await db.submission.findUniqueOrThrow({ where: { id: stuckHead } });
  assert.equal(head.status, "queued");
  failHead = false;
  let later = new Date(head.nextAttemptAt.getTime() + 1);
  while ((await w.runOnce(later)) > 0) later = new Date(later.getTime() + 1);
  assert.deepEqual(rec.performed.get("stuck"), lanes.get("stuck"), "after the retry, in order");
});

test("the lease is renewed while a slow perform runs: no other worker takes the row", async () => {
  const [id] = (await enqueueLanes(db, "q", ["slow"], 1)).get("slow")!;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const slow = laneRecorder(() => released);
  const first = new QueueWorker(db, { test: slow.handler }, { ...options(1), leaseMs: 1000 });
  const second = laneRecorder();
  const other = new QueueWorker(db, { test: second.handler }, options(1));
  first.start();
  try {
    const claimed = await eventually(
      async () => db.submission.findFirst({ where: { id, attempts: 1 } }),
      10_000,
      "the claim",
    );
    const originalLease = claimed.leaseUntil!.getTime();
    await eventually(
      async () => (await db.submission.findUniqueOrThrow({ where: { id } })).leaseUntil!.getTime() > originalLease,
      10_000,
      "a renewed lease",
    );
    await eventually(async () => Date.now() > originalLease + 100, 10_000, "the original lease to pass");
    assert.equal(await other.runOnce(), 0, "the renewed lease keeps the row");
    release();
    await eventually(
      async () => db.submission.findFirst({ where: { id, status: "sent" } }),
      10_000,
      "the slow send recorded",
    );
  } finally {
    release();
    await first.stop();
  }
  assert.equal(second.calls.size, 0);
  assert.equal((await db.submission.findUniqueOrThrow({ where: { id } })).attempts, 1);
});

test("on PostgreSQL, two instances' workers share one queue: each row once, each page in order", async () => {
  const database = await freshDatabase("postgres");
  await migrate(database.url);
  const pgDb = await openDatabase(database.url);
  try {
    await pgDb.site.create({ data: { id: "q", source: "config" } });
    const pages = ["p1", "p2", "p3", "p4", "p5", "p6"];
    const lanes = await enqueueLanes(pgDb, "q", pages, 5);
    // One recorder for both: it sees a page's submissions whichever instance performs them.
    const rec = laneRecorder();
    const workers = [
      new QueueWorker(pgDb, { test: rec.handler }, options(4, "postgres")),
      new QueueWorker(pgDb, { test: rec.handler }, options(4, "postgres")),
    ];
    workers.forEach((w) => w.start());
    try {
      await eventually(
        async () => (await pgDb.submission.count({ where: { status: "queued" } })) === 0,
        30_000,
        "the queue drained",
      );
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    assert.ok(
      [...rec.calls.values()].every((n) => n === 1),
      "no row performed twice",
    );
    assert.equal(rec.calls.size, 30);
    for (const page of pages) assert.deepEqual(rec.performed.get(page), lanes.get(page), `${page} in submission order`);
    assert.equal(rec.overlap(), false, "never two of one page at once");
  } finally {
    await pgDb.$disconnect();
    await database.drop();
  }
});
