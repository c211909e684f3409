// Several instances on one PostgreSQL database: a write accepted by an API-only instance is
// sent by another instance's worker, and reaches SSE clients of the API-only instance through
// PostgreSQL NOTIFY (the fallback poll is set far beyond the tests' reach); a page's streams
// share one subscription, resume from Last-Event-ID through it, and a stalled client is dropped
// while a healthy one keeps receiving; background passes run on one leader, and another
// instance takes them over when it stops.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { eventually, freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { SseClient, type SseMessage } from "../support/sse.ts";
import { Visitor } from "../support/visitor.ts";

/** No live event may reach another instance by polling within a test. */
const NO_POLL = { "live.fallback_poll_ms": 3_600_000, "cluster.leader_retry_ms": 100 };

const created = (stream: SseClient) => stream.messages.filter((m) => m.data.type === "message_created");

async function submit(
  visitor: Visitor,
  siteId: string,
  text: string,
  key: string,
  challengeFrom?: string,
): Promise<string> {
  const body = await visitor.commentBody(siteId, "p", text, challengeFrom ? { challengeFrom } : {});
  const res = await visitor.post(`/api/v1/sites/${siteId}/pages/p/comments`, body, { "idempotency-key": key });
  assert.equal(res.status, 202);
  return ((await res.json()) as { submission_id: string }).submission_id;
}

const delivered = (stream: SseClient, submissionId: string, what: string): Promise<SseMessage> =>
  eventually(async () => created(stream).find((m) => m.data.payload.submission_id === submissionId), 30_000, what);

/** An SSE request on a raw socket that stops reading once the response has begun. */
function stalledClient(
  url: string,
  path: string,
): Promise<{ socket: Socket; received: () => number; ended: () => boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = 0;
    let ended = false;
    socket.on("error", () => {});
    socket.on("close", () => (ended = true));
    socket.on("data", (chunk: Buffer) => (received += chunk.length));
    socket.once("data", () => {
      socket.pause();
      resolve({ socket, received: () => received, ended: () => ended });
    });
    socket.once("error", reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\n\r\n`);
  });
}

test("an API-only instance and a worker instance share challenges, the queue and the live events", async () => {
  const database = await freshDatabase("postgres");
  const siteId = uniqueSiteId("multi");
  const sites = { [siteId]: { origins: [TEST_ORIGIN] } };
  // The worker instance listens where the homeserver pushes transactions: it projects.
  const worker = await startTestService({ databaseUrl: database.url, sites, overrides: NO_POLL });
  const api = await startTestService({
    databaseUrl: database.url,
    sites,
    worker: false,
    overrides: { ...NO_POLL, "server.listen_port": 0 },
  });
  const ssePath = `/api/v1/sites/${siteId}/pages/p/sse`;
  const stream = await SseClient.open(`${api.url}${ssePath}`);
  const streams = [stream];
  try {
    const visitor = new Visitor(api.url, TEST_ORIGIN);
    // The challenge comes from the other instance: challenges verify on every instance.
    const first = await submit(visitor, siteId, "via the API instance", "m-1", worker.url);
    const event = await delivered(stream, first, "message_created on the API instance");
    assert.equal(event.data.payload.content.body, "via the API instance");
    const row = await api.services.db.submission.findUniqueOrThrow({ where: { id: first } });
    assert.equal(row.status, "sent");
    assert.equal(api.services.leader.isLeader, false, "an API-only instance never runs the background passes");

    // Resume through the shared feed: a client coming back with the snapshot's id gets what it
    // missed (read from the event table), then what follows, once each and in order.
    const snapshotId = stream.messages[0]!.id!;
    const second = await submit(visitor, siteId, "second", "m-2");
    await delivered(stream, second, "the second comment");
    const resumed = await SseClient.open(`${api.url}${ssePath}`, { "last-event-id": snapshotId });
    streams.push(resumed);
    assert.equal(resumed.status, 200);
    await delivered(resumed, second, "the missed comments on the resumed stream");
    const third = await submit(visitor, siteId, "third", "m-3");
    await delivered(resumed, third, "a new comment on the resumed stream");
    assert.deepEqual(
      created(resumed).map((m) => m.data.payload.submission_id),
      [first, second, third],
    );
    const ids = resumed.messages.slice(1).map((m) => Number(m.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      "ids ascend",
    );
    assert.equal(new Set(ids).size, ids.length, "nothing twice");
    assert.deepEqual(
      created(stream).map((m) => m.data.payload.submission_id),
      [first, second, third],
    );

    // A client that stops reading is dropped once its unsent output passes the bound; a healthy
    // client of the same page keeps receiving everything.
    const stalled = await stalledClient(api.url, ssePath);
    // Far more than the bound (live.max_unsent_bytes, 1 MiB) and the kernel's socket buffers.
    const FLOOD = 60;
    const blob = "x".repeat(256 * 1024);
    const before = stream.messages.length;
    for (let i = 1; i <= FLOOD; i++) {
      await worker.services.db.liveEvent.create({
        data: { siteId, pageSlug: "p", type: "ephemeral", payload: JSON.stringify({ kind: "flood", i, blob }) },
      });
      worker.services.signals.liveEventsStored();
      // The healthy client reads each one as it comes.
      await eventually(
        async () => stream.messages.length >= before + i,
        10_000,
        `flood event ${i} on the healthy stream`,
      );
    }
    stalled.socket.resume();
    await eventually(async () => stalled.ended(), 10_000, "the stalled client to be disconnected");
    assert.ok(
      stalled.received() < FLOOD * blob.length,
      `the stalled client was sent everything (${stalled.received()} bytes)`,
    );
    const fourth = await submit(visitor, siteId, "after the flood", "m-4");
    await delivered(stream, fourth, "a comment after the flood on the healthy stream");
  } finally {
    for (const s of streams) s.close();
    await api.stop();
    await worker.stop();
    await database.drop();
  }
});

test("background passes run on one leader; when it stops, another instance takes them over", async () => {
  const database = await freshDatabase("postgres");
  // The first instance to start leads.
  const first = await startTestService({
    databaseUrl: database.url,
    overrides: { ...NO_POLL, "server.listen_port": 0 },
  });
  let firstStopped = false;
  const second = await startTestService({ databaseUrl: database.url, overrides: NO_POLL });
  try {
    assert.equal(first.services.leader.isLeader, true);
    assert.equal(second.services.leader.isLeader, false);
    await first.stop();
    firstStopped = true;
    await eventually(async () => second.services.leader.isLeader, 10_000, "the second instance to lead");

    // A retirement requested now completes: the retirement pass runs on the survivor.
    const siteId = uniqueSiteId("lead");
    const registered = await fetch(`${second.url}/api/v1/sites`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site_id: siteId }),
    });
    assert.equal(registered.status, 201);
    const { claim_token } = (await registered.json()) as { claim_token: string };
    const path = `${second.url}/api/v1/sites/${siteId}/retirement`;
    const retire = await fetch(path, { method: "POST", headers: { "x-service-claim-token": claim_token } });
    assert.equal(retire.status, 202);
    await eventually(
      async () => (await fetch(path)).status === 404,
      30_000,
      "the retirement to complete on the new leader",
    );
  } finally {
    if (!firstStopped) await first.stop();
    await second.stop();
    await database.drop();
  }
});
