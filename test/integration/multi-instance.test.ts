// Several instances on one PostgreSQL database: a write accepted by an API-only instance is
// sent by another instance's worker, and reaches SSE clients of the API-only instance.
import { test } from "node:test";
import assert from "node:assert/strict";
import { eventually, freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { SseClient } from "../support/sse.ts";
import { Visitor } from "../support/visitor.ts";

test("an API-only instance and a worker instance share challenges, the queue and the live events", async () => {
  const database = await freshDatabase("postgres");
  const siteId = uniqueSiteId("multi");
  const sites = { [siteId]: { origins: [TEST_ORIGIN] } };
  // The worker instance listens where the homeserver pushes transactions.
  const worker = await startTestService({ databaseUrl: database.url, sites });
  const api = await startTestService({ databaseUrl: database.url, sites, worker: false, overrides: { "server.listen_port": 0 } });
  const stream = await SseClient.open(`${api.url}/api/v1/sites/${siteId}/pages/p/sse`);
  try {
    const visitor = new Visitor(api.url, TEST_ORIGIN);
    // The challenge comes from the other instance: challenges verify on every instance.
    const body = await visitor.commentBody(siteId, "p", "via the API instance", { challengeFrom: worker.url });
    const res = await visitor.post(`/api/v1/sites/${siteId}/pages/p/comments`, body, { "idempotency-key": "m-1" });
    assert.equal(res.status, 202);
    const { submission_id } = (await res.json()) as { submission_id: string };
    const event = await eventually(async () => stream.messages.find((m) => m.data.type === "message_created"), 30_000, "message_created on the API instance");
    assert.equal(event.data.payload.submission_id, submission_id);
    assert.equal(event.data.payload.content.body, "via the API instance");
    const row = await api.services.db.submission.findUniqueOrThrow({ where: { id: submission_id } });
    assert.equal(row.status, "sent");
  } finally {
    stream.close();
    await api.stop();
    await worker.stop();
    await database.drop();
  }
});
