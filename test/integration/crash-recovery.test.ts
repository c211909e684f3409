// A 202 is a promise: a submission survives the service being killed before it reaches
// Matrix, and a resend after a crash never duplicates the Matrix event.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import Database from "better-sqlite3";
import { stringify } from "smol-toml";
import { PROOF_KEY } from "../../src/matrix/events.ts";
import { eventually, startTestService, testConfigDocument, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { restartLocalHomeserver } from "../../src/matrix/local-homeserver.ts";
import { matrixRequest, resolveAlias, roomMessages } from "../support/matrix.ts";
import {
  TEST_SERVER_NAME,
  TEST_SYNAPSE_INSTANCE,
  TEST_SYNAPSE_PORT,
  TEST_NAMESPACE_PREFIX,
} from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments } from "../support/reads.ts";
import { kill, startProcess } from "../support/service-process.ts";

const eventsWithSubmission = async (roomId: string, submissionId: string) =>
  (await roomMessages(roomId)).filter((e) => e.content[PROOF_KEY]?.submission_id === submissionId);

test("SIGKILL after the 202 and before the Matrix write: after a restart the comment exists exactly once", async () => {
  const siteId = uniqueSiteId("crash");
  const work = mkdtempSync(join(tmpdir(), "crash-"));
  const dbFile = join(work, "comments.db");
  const configFile = join(work, "config.toml");
  writeFileSync(
    configFile,
    stringify(testConfigDocument({ databaseUrl: `file:${dbFile}`, sites: { [siteId]: { origins: [TEST_ORIGIN] } } })),
  );

  // An API-only instance: it accepts and stores, but sends nothing to Matrix.
  let child = await startProcess(configFile, ["--no-worker"]);
  const base = testConfigDocument().server;
  const visitor = new Visitor(`http://${base.listen_host}:${base.listen_port}`, TEST_ORIGIN);
  const res = await visitor.post(
    `/api/v1/sites/${siteId}/pages/crash/comments`,
    await visitor.commentBody(siteId, "crash", "survives a crash"),
    { "idempotency-key": "crash-1" },
  );
  assert.equal(res.status, 202);
  const { submission_id } = (await res.json()) as { submission_id: string };
  await kill(child, "SIGKILL");

  const db = new Database(dbFile, { readonly: true });
  assert.equal(
    (db.prepare(`SELECT status FROM "Submission" WHERE id = ?`).get(submission_id) as { status: string }).status,
    "queued",
  );
  db.close();

  let printed = "";
  child = await startProcess(configFile, [], (chunk) => (printed += chunk));
  try {
    // npm start's line names the desk beside the demo; the desk is served there.
    const desk = /dashboard (\S+\/admin)/.exec(printed)?.[1];
    assert.equal(desk, `${visitor.baseUrl}/admin`, printed);
    const page = await fetch(desk!);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    await page.arrayBuffer();
    const listed = await eventually(
      async () => {
        const { data } = await listComments({ url: visitor.baseUrl }, siteId, "crash");
        return data.length > 0 ? data : null;
      },
      30_000,
      "the comment after restart",
    );
    assert.equal(listed.length, 1);
    assert.equal(listed[0].submission_id, submission_id);
    const roomId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}_crash:${TEST_SERVER_NAME}`);
    assert.equal((await eventsWithSubmission(roomId, submission_id)).length, 1);
  } finally {
    await kill(child, "SIGTERM");
  }
});

test("a resend after a crash between the Matrix write and recording it reuses the event", async () => {
  const siteId = uniqueSiteId("resend");
  const service = await startTestService({ sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
  try {
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    const res = await visitor.post(
      `/api/v1/sites/${siteId}/pages/p/comments`,
      await visitor.commentBody(siteId, "p", "sent once"),
      { "idempotency-key": "r-1" },
    );
    const { submission_id } = (await res.json()) as { submission_id: string };
    const db = service.services.db;
    const sent = await eventually(
      async () => db.submission.findFirst({ where: { id: submission_id, status: "sent" } }),
      30_000,
      "the submission sent",
    );
    await eventually(
      async () => db.comment.findFirst({ where: { submissionId: submission_id } }),
      30_000,
      "the projection",
    );

    // As if the worker died after Synapse accepted the event but before the row was updated,
    // and before the projection saw it: the worker must resend with the same transaction id.
    await db.comment.deleteMany({ where: { submissionId: submission_id } });
    await db.submission.update({
      where: { id: submission_id },
      data: { status: "queued", eventId: null, completedAt: null },
    });
    service.services.worker.wake();
    const resent = await eventually(
      async () => db.submission.findFirst({ where: { id: submission_id, status: "sent" } }),
      30_000,
      "the resend",
    );
    assert.equal(resent.eventId, sent.eventId, "the homeserver answered the resend with the original event");
    assert.equal(resent.attempts, 2);
    const roomId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}_p:${TEST_SERVER_NAME}`);
    assert.equal((await eventsWithSubmission(roomId, submission_id)).length, 1);
  } finally {
    await service.stop();
  }
});

test("a crash after the homeserver stored the event, then a homeserver restart: the resend finds the event instead of sending it again", async () => {
  const siteId = uniqueSiteId("restart");
  const service = await startTestService({ sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
  try {
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    const res = await visitor.post(
      `/api/v1/sites/${siteId}/pages/p/comments`,
      await visitor.commentBody(siteId, "p", "stored before the crash"),
      { "idempotency-key": "h-1" },
    );
    const { submission_id } = (await res.json()) as { submission_id: string };
    const db = service.services.db;
    const sent = await eventually(
      async () => db.submission.findFirst({ where: { id: submission_id, status: "sent" } }),
      30_000,
      "the submission sent",
    );
    await eventually(
      async () => db.comment.findFirst({ where: { submissionId: submission_id } }),
      30_000,
      "the projection",
    );
    const roomId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}_p:${TEST_SERVER_NAME}`);

    // As if the worker died after Synapse stored the event, before the row or the projection
    // recorded it: the row still says attempt 1 started and nothing came of it.
    await service.services.worker.stop();
    await db.comment.deleteMany({ where: { submissionId: submission_id } });
    await db.submission.update({
      where: { id: submission_id },
      data: { status: "queued", eventId: null, completedAt: null, leaseUntil: null },
    });

    // The homeserver restarts and forgets its transaction ids: the same txn id now makes a new event.
    const probe = (body: string) =>
      matrixRequest(
        "PUT",
        `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/probe-${submission_id}`,
        undefined,
        { msgtype: "m.notice", body },
      );
    const before = (await probe("txn probe")).event_id as string;
    restartLocalHomeserver(TEST_SYNAPSE_INSTANCE, TEST_SYNAPSE_PORT);
    // (Retried: the first request after the restart may meet a pooled connection to the old process.)
    const after = await eventually(
      async () => probe("txn probe").catch(() => null),
      10_000,
      "the probe after the restart",
    );
    assert.notEqual(after.event_id, before, "after a restart Synapse no longer dedupes the transaction id");

    service.services.worker.start();
    const resent = await eventually(
      async () => db.submission.findFirst({ where: { id: submission_id, status: "sent" } }),
      30_000,
      "the resend",
    );
    assert.equal(resent.eventId, sent.eventId, "the worker found the event the crashed attempt stored");
    assert.ok(resent.attempts >= 2);
    assert.equal((await eventsWithSubmission(roomId, submission_id)).length, 1, "exactly one event");
  } finally {
    await service.stop();
  }
});
