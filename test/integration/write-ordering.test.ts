// The worker against the real homeserver: a page's writes reach its room in submission order,
// whatever else is queued, and a page whose writes fail holds up no other page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { PROOF_KEY } from "../../src/matrix/events.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { eventually, startTestService, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { matrixRequest, registerMatrixUser, resolveAlias, roomMessages } from "../support/matrix.ts";
import { TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";

const enc = encodeURIComponent;

async function postComment(visitor: Visitor, siteId: string, page: string, content: string): Promise<string> {
  const res = await visitor.post(
    `/api/v1/sites/${siteId}/pages/${page}/comments`,
    await visitor.commentBody(siteId, page, content),
    { "idempotency-key": randomUUID() },
  );
  assert.equal(res.status, 202, await res.clone().text());
  return ((await res.json()) as { submission_id: string }).submission_id;
}

async function editComment(
  visitor: Visitor,
  siteId: string,
  page: string,
  commentId: string,
  content: string,
): Promise<void> {
  const body = {
    content,
    ...(await visitor.proof((ch) => signatureArrays.editComment(siteId, page, commentId, content, ch))),
  };
  const res = await visitor.send("PATCH", `/api/v1/sites/${siteId}/pages/${page}/comments/${enc(commentId)}`, body, {
    "idempotency-key": randomUUID(),
  });
  assert.equal(res.status, 202, await res.clone().text());
}

const allSettled = (service: TestService, siteId: string) =>
  eventually(
    async () => (await service.services.db.submission.count({ where: { siteId, status: "queued" } })) === 0,
    60_000,
    "every submission performed",
  );

test("comments and edits submitted concurrently reach the room in submission order, while other pages get work too", async () => {
  const siteId = uniqueSiteId("order");
  const service = await startTestService({ sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
  try {
    const db = service.services.db;
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    // Comments to edit: an edit names its comment by event id, so these exist first.
    const originals = await Promise.all([0, 1, 2].map((i) => postComment(visitor, siteId, "busy", `original ${i}`)));
    await allSettled(service, siteId);
    const commentIds = await Promise.all(
      originals.map(
        async (id) =>
          (
            await eventually(
              async () => db.comment.findFirst({ where: { submissionId: id } }),
              30_000,
              "the projection",
            )
          ).eventId,
      ),
    );

    // All at once: new comments and several edits of each comment on the busy page, and
    // comments on three other pages.
    const writes: Array<Promise<unknown>> = [];
    for (let round = 0; round < 3; round++) {
      writes.push(postComment(visitor, siteId, "busy", `new ${round}`));
      commentIds.forEach((commentId, i) =>
        writes.push(editComment(visitor, siteId, "busy", commentId, `original ${i}, edit ${round}`)),
      );
      for (const page of ["other-1", "other-2", "other-3"])
        writes.push(postComment(visitor, siteId, page, `${page} ${round}`));
    }
    await Promise.all(writes);
    await allSettled(service, siteId);

    const submitted = await db.submission.findMany({
      where: { siteId, pageSlug: "busy" },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    assert.ok(submitted.every((s) => s.status === "sent"));
    const roomId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}_busy:${TEST_SERVER_NAME}`);
    const timeline = await roomMessages(roomId);
    const timelineOrder = timeline.map((e) => e.content[PROOF_KEY]?.submission_id).filter(Boolean);
    assert.deepEqual(
      timelineOrder,
      submitted.map((s) => s.id),
      "the room's timeline is the submission order",
    );
    const position = new Map(timeline.map((e, i) => [e.event_id, i]));
    for (const edit of timeline.filter((e) => e.content["m.relates_to"]?.rel_type === "m.replace")) {
      assert.ok(
        position.get(edit.content["m.relates_to"].event_id)! < position.get(edit.event_id)!,
        "an edit comes after its comment",
      );
    }
  } finally {
    await service.stop();
  }
});

test("a page whose room refuses the writes: the room is quarantined, its writes go to a fresh room, every other page's are sent", async () => {
  const siteId = uniqueSiteId("refused");
  const service = await startTestService({
    sites: { [siteId]: { origins: [TEST_ORIGIN] } },
    worker: false,
    overrides: { "queue.concurrency": 2 },
  });
  try {
    const db = service.services.db;
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    // The page's room is an invite-only room of an ordinary Matrix user: no virtual user may join.
    const owner = await registerMatrixUser(`owner-${siteId}`);
    const { room_id: closedRoom } = await matrixRequest<{ room_id: string }>(
      "POST",
      "/_matrix/client/v3/createRoom",
      owner.token,
      { preset: "private_chat" },
    );
    await db.room.create({ data: { roomId: closedRoom, siteId, pageSlug: "closed", roomVersion: "12" } });

    // The closed page's writes come first in the queue, more of them than the worker has slots.
    const closed = [];
    for (let i = 0; i < 4; i++) closed.push(await postComment(visitor, siteId, "closed", `refused ${i}`));
    const open = [];
    for (const page of ["open-1", "open-2", "open-3"])
      open.push(await postComment(visitor, siteId, page, `accepted on ${page}`));
    service.services.worker.start();
    await allSettled(service, siteId);

    // A visitor's write never fails for a room the service cannot manage (the quarantine).
    for (const id of [...closed, ...open])
      assert.equal((await db.submission.findUniqueOrThrow({ where: { id } })).status, "sent");
    const quarantined = await db.roomQuarantine.findUniqueOrThrow({ where: { roomId: closedRoom } });
    assert.match(quarantined.reason, /M_FORBIDDEN|join/i);
    const active = await db.room.findFirstOrThrow({ where: { siteId, pageSlug: "closed", state: "active" } });
    assert.notEqual(active.roomId, closedRoom);
  } finally {
    await service.stop();
  }
});
