// Operations: liveness and readiness probes, and the graceful stop (SIGTERM): SSE streams end
// with a retry hint and their clients resume on another instance, and the stopped instance
// leaves no submission leased or half-sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { eventually, freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { SseClient } from "../support/sse.ts";
import { Visitor } from "../support/visitor.ts";
import pg from "pg";
import { TEST_POSTGRES_URL } from "../support/environment.ts";
import { STOP_RETRY_MS } from "../../src/rest/api.ts";

const NO_POLL = { "live.fallback_poll_ms": 3_600_000, "cluster.leader_retry_ms": 100 };

test("liveness and readiness: ready while the database and the homeserver answer, not while stopping or the homeserver is down", async () => {
  const service = await startTestService({ worker: false });
  try {
    const live = await fetch(`${service.url}/health/live`);
    assert.equal(live.status, 200);
    assert.deepEqual(await live.json(), { live: true });
    const ready = await fetch(`${service.url}/health/ready`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { ready: true, database: "ok", homeserver: "ok", stopping: false });
    service.services.health.stopping = true;
    const stopping = await fetch(`${service.url}/health/ready`);
    assert.equal(stopping.status, 503);
    assert.equal(((await stopping.json()) as { stopping: boolean }).stopping, true);
    // Liveness stays true: the process is fine, it is only leaving.
    assert.equal((await fetch(`${service.url}/health/live`)).status, 200);
  } finally {
    await service.stop();
  }
  const orphan = await startTestService({
    worker: false,
    overrides: { "matrix.homeserver_url": "http://127.0.0.1:9", "matrix.request_timeout_ms": 1000 },
  });
  try {
    const ready = await fetch(`${orphan.url}/health/ready`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { ready: false, database: "ok", homeserver: "unavailable", stopping: false });
  } finally {
    await orphan.stop();
  }
});

test("readiness is false while the database is unreachable, and true again once it is back", async () => {
  const database = await freshDatabase("postgres");
  const service = await startTestService({ databaseUrl: database.url, worker: false, overrides: NO_POLL });
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    assert.equal((await fetch(`${service.url}/health/ready`)).status, 200);
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    const down = await eventually(
      async () => {
        const res = await fetch(`${service.url}/health/ready`);
        return res.status === 503 ? ((await res.json()) as { database: string }) : null;
      },
      15_000,
      "readiness to turn false",
    );
    assert.equal(down.database, "unavailable");
    assert.equal((await fetch(`${service.url}/health/live`)).status, 200, "liveness does not depend on the database");
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await eventually(
      async () => (await fetch(`${service.url}/health/ready`)).status === 200,
      15_000,
      "readiness to come back",
    );
  } finally {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {});
    await admin.end();
    await service.stop();
    await database.drop();
  }
});

test("a graceful stop ends SSE streams with a retry hint, clients resume on another instance, and no submission is left leased or half-sent", async () => {
  const database = await freshDatabase("postgres");
  const siteId = uniqueSiteId("stop");
  const sites = { [siteId]: { origins: [TEST_ORIGIN] } };
  const first = await startTestService({ databaseUrl: database.url, sites, overrides: NO_POLL });
  const second = await startTestService({
    databaseUrl: database.url,
    sites,
    worker: false,
    overrides: { ...NO_POLL, "server.listen_port": 0 },
  });
  let firstStopped = false;
  const ssePath = `/api/v1/sites/${siteId}/pages/p/sse`;
  const streams: SseClient[] = [];
  try {
    const stream = await SseClient.open(`${first.url}${ssePath}`);
    streams.push(stream);
    assert.equal(stream.status, 200);
    await eventually(async () => stream.messages.length > 0, 10_000, "the snapshot");
    const visitor = new Visitor(first.url, TEST_ORIGIN);
    const accepted: string[] = [];
    for (let i = 0; i < 4; i++) {
      const body = await visitor.commentBody(siteId, "p", `before the stop ${i}`);
      const res = await visitor.post(`/api/v1/sites/${siteId}/pages/p/comments`, body, {
        "idempotency-key": `stop-${i}`,
      });
      assert.equal(res.status, 202);
      accepted.push(((await res.json()) as { submission_id: string }).submission_id);
    }
    // Stop while the worker has them in hand.
    await first.stop();
    firstStopped = true;
    assert.ok(
      stream.ended || (await eventually(async () => stream.ended, 5_000, "the stream to end")),
      "the stream ended",
    );
    assert.equal(stream.retry, STOP_RETRY_MS, "the stream's last words are a retry hint");

    const rows = await second.services.db.submission.findMany({ where: { id: { in: accepted } } });
    assert.equal(rows.length, accepted.length);
    for (const row of rows) {
      assert.equal(row.leaseUntil, null, `submission ${row.id} is still leased`);
      assert.ok(row.status === "sent" || row.status === "queued", `submission ${row.id} is ${row.status}`);
      if (row.status === "sent") assert.ok(row.eventId, `submission ${row.id} is sent without its event`);
    }

    // The client reconnects to the other instance and resumes from its last event.
    const lastId = stream.messages.at(-1)?.id;
    const resumed = await SseClient.open(`${second.url}${ssePath}`, lastId ? { "last-event-id": lastId } : {});
    streams.push(resumed);
    assert.equal(resumed.status, 200);
    const ready = await fetch(`${second.url}/health/ready`);
    assert.equal(ready.status, 200);
  } finally {
    for (const s of streams) s.close();
    if (!firstStopped) await first.stop();
    await second.stop();
    await database.drop();
  }
});
