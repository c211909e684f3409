// The projection, on real SQLite and PostgreSQL through the real appservice endpoint: events
// out of order and repeated converge, transaction ids are no key, large transactions apply, an
// unapplyable event is recorded and skipped, events of a room recorded later are applied then,
// live events follow each change; and end to end with a regular Matrix account in real Synapse.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { MatrixNames } from "../../src/matrix/names.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import type { RoomEvent } from "../../src/projection/room-event.ts";
import {
  eventually,
  freshDatabase,
  PROVIDERS,
  serviceFor,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { TEST_HS_TOKEN, TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { matrixRequest, registerMatrixUser } from "../support/matrix.ts";
import { pageHistory, roomEvents } from "../support/room-events.ts";
import { SseClient } from "../support/sse.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments } from "../support/reads.ts";
import { PROJECTION_PAGE_LANES } from "../../src/config/limits.ts";

const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const enc = encodeURIComponent;
const alice = "@alice:localhost";
const bob = "@bob:localhost";

async function transaction(service: TestService, txnId: string, events: unknown[]): Promise<number> {
  const res = await fetch(`${service.url}/_matrix/app/v1/transactions/${enc(txnId)}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TEST_HS_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ events }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Records a page room the way the provisioner does: the Room row, then the replay of what waited for it. */
async function recordRoom(
  service: TestService,
  siteId: string,
  page: string,
  roomId = `!${page}-${randomBytes(4).toString("hex")}:localhost`,
): Promise<string> {
  await service.services.db.room.create({ data: { roomId, siteId, pageSlug: page, roomVersion: "12" } });
  await service.services.projector.replayWaiting(roomId);
  return roomId;
}

for (const provider of PROVIDERS) {
  describe(`projection on ${provider}`, () => {
    const siteId = uniqueSiteId("proj");
    const running = serviceFor(provider, { sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
    let service: TestService;
    const query = (page: string, body: Record<string, unknown> = {}) => listComments(service, siteId, page, body);

    before(() => (service = running.service));

    test("events out of order and repeated converge to the same QUERY output", async () => {
      const database = await freshDatabase(provider);
      const other = await startTestService({
        databaseUrl: database.url,
        sites: { [siteId]: { origins: [TEST_ORIGIN] } },
        worker: false,
        overrides: { "server.listen_port": 0 },
      });
      try {
        const visitor = new Visitor(service.url);
        const roomId = `!order-${randomBytes(4).toString("hex")}:localhost`;
        const { events, c1, c2, c3, poll, latestEdit } = pageHistory(
          roomId,
          names.botUserId,
          names.visitorUserId(siteId, visitor.publicKey),
        );
        await recordRoom(service, siteId, "order", roomId);
        await recordRoom(other, siteId, "order", roomId);

        assert.equal(await transaction(service, "in-order", events), 200);
        // Newest first, one event per transaction, a third of them twice, then everything again.
        const reversed = [...events].reverse();
        for (const [i, event] of reversed.entries()) {
          assert.equal(await transaction(other, `one-${i}`, [event]), 200);
          if (i % 3 === 0) assert.equal(await transaction(other, `again-${i}`, [event]), 200);
        }
        assert.equal(await transaction(other, "all-again", reversed), 200);

        const personalized = {
          author_public_key: visitor.key,
          author_signature: visitor.sign(signatureArrays.queryComments(siteId, "order")),
        };
        const expected = await query("order");
        assert.deepEqual((await listComments(other, siteId, "order")).data, expected.data);
        assert.deepEqual(
          (await listComments(other, siteId, "order", personalized)).data,
          (await query("order", personalized)).data,
        );

        const byId = new Map(expected.data.map((m) => [m.event_id, m]));
        const first = byId.get(c1.event_id);
        assert.equal(first.status, "edited");
        assert.equal(first.content.body, "first, edited twice");
        assert.equal(first.edited_at, new Date(latestEdit.origin_server_ts).toISOString());
        assert.deepEqual(first.reactions, [{ key: "👍", count: 2, mine: false }]);
        assert.deepEqual((await query("order", personalized)).data.find((m) => m.event_id === c1.event_id).reactions, [
          { key: "👍", count: 2, mine: true },
        ]);
        const second = byId.get(c2.event_id);
        assert.deepEqual(
          [second.status, second.content, second.reply_to, second.reactions],
          ["redacted", { type: "redacted" }, null, []],
        );
        assert.equal(byId.get(c3.event_id).status, "published");
        assert.deepEqual(byId.get(poll.event_id).content, {
          type: "poll",
          question: "Tea or coffee?",
          options: [
            { id: "0", text: "Tea" },
            { id: "1", text: "Coffee" },
          ],
          responses: [
            { option_index: 0, count: 2 },
            { option_index: 1, count: 0 },
          ],
        });
        assert.deepEqual(byId.get(c1.event_id).author, {
          type: "matrix",
          mxid: alice,
          display_name: "Alice",
          avatar_url: null,
        });
      } finally {
        await other.stop();
        await database.drop();
      }
    });

    test("a reused transaction id carrying new events applies them", async () => {
      const room = roomEvents(await recordRoom(service, siteId, "reuse"));
      assert.equal(await transaction(service, "reused", [room.text(alice, "before the restart")]), 200);
      assert.equal(await transaction(service, "reused", [room.text(alice, "after the restart")]), 200);
      assert.deepEqual(
        (await query("reuse")).data.map((m) => m.content.body),
        ["before the restart", "after the restart"],
      );
    });

    test("a transaction's pages are applied side by side, each page's events in arrival order", async () => {
      const pages = ["lanes-0", "lanes-1", "lanes-2", "lanes-3", "lanes-4"];
      const rooms = await Promise.all(pages.map(async (page) => roomEvents(await recordRoom(service, siteId, page))));
      // The shared page also has the room an upgrade left: its two rooms are one lane.
      const oldRoomId = `!lanes-old-${randomBytes(4).toString("hex")}:localhost`;
      await service.services.db.room.create({
        data: { roomId: oldRoomId, siteId, pageSlug: "lanes-4", roomVersion: "11", state: "superseded" },
      });
      rooms.push(roomEvents(oldRoomId));
      const pageOf = new Map(rooms.map((room, i) => [room.roomId, pages[Math.min(i, 4)]!]));
      const histories = rooms.map((room, i) => {
        const first = room.text(alice, `first ${i}`);
        return [
          room.member(alice, `Alice ${i}`),
          first,
          room.text(bob, `second ${i}`),
          room.reaction(bob, first.event_id, "👍"),
          room.edit(alice, first.event_id, `first ${i}, edited`),
        ];
      });
      // Round robin: every room's first event, then every room's second, …
      const events = histories[0]!.flatMap((_, k) => histories.map((history) => history[k]!));

      const projector = service.services.projector;
      const started: RoomEvent[] = [];
      const inFlight = new Map<string, number>();
      let running = 0;
      let most = 0;
      const apply = projector.apply.bind(projector);
      projector.apply = async (event, projected) => {
        const page = pageOf.get(event.room_id)!;
        started.push(event);
        assert.equal(inFlight.get(page) ?? 0, 0, `two events of ${page} applied at once`);
        inFlight.set(page, 1);
        most = Math.max(most, ++running);
        try {
          return await apply(event, projected);
        } finally {
          running--;
          inFlight.set(page, 0);
        }
      };
      try {
        assert.equal(await transaction(service, "lanes", events), 200);
      } finally {
        delete (projector as { apply?: unknown }).apply;
      }

      assert.ok(most >= 2 && most <= PROJECTION_PAGE_LANES, `${most} pages applied at once`);
      for (const page of pages) {
        const inPage = (e: RoomEvent) => pageOf.get(e.room_id) === page;
        assert.deepEqual(
          started.filter(inPage).map((e) => e.event_id),
          events.filter(inPage).map((e) => e.event_id),
        );
      }
      // Every room's comments, edited, reacted to and signed with the profile of its own history.
      for (const page of pages) {
        const roomsOfPage = rooms
          .map((room, i) => [room, i] as const)
          .filter(([room]) => pageOf.get(room.roomId) === page);
        const listed = await query(page);
        const shown = listed.data
          .map((m) => `${m.content.body} by ${m.author.display_name} ${JSON.stringify(m.reactions)}`)
          .sort();
        const expected = roomsOfPage
          .flatMap(([, i]) => [
            `first ${i}, edited by Alice ${i} [{"key":"👍","count":1,"mine":false}]`,
            `second ${i} by null []`,
          ])
          .sort();
        assert.deepEqual(shown, expected);
        assert.equal(listed.meta.total, expected.length);
      }
    });

    test("a transaction of 100 events of about 60 KB each is applied", async () => {
      const room = roomEvents(await recordRoom(service, siteId, "large"));
      const events = Array.from({ length: 100 }, (_, i) => room.text(alice, `${i} ${"x".repeat(60_000)}`));
      assert.ok(JSON.stringify({ events }).length > 6_000_000);
      assert.equal(await transaction(service, "large", events), 200);
      const listed = await query("large", { per_page: 100 });
      assert.equal(listed.meta.total, 100);
      assert.deepEqual(
        listed.data.map((m) => m.content.body.split(" ")[0]),
        events.map((_, i) => String(i)),
      );
    });

    test("an unapplyable event is recorded for repair and blocks nothing", async () => {
      const roomId = await recordRoom(service, siteId, "repair");
      const room = roomEvents(roomId);
      const bad = room.raw(alice, "m.room.message", null as never);
      assert.equal(await transaction(service, "with-bad", [bad, room.text(alice, "after the bad one")]), 200);
      assert.equal(await transaction(service, "next", [room.text(alice, "next transaction")]), 200);
      assert.deepEqual(
        (await query("repair")).data.map((m) => m.content.body),
        ["after the bad one", "next transaction"],
      );
      const db = service.services.db;
      const repair = await db.projectionRepair.findUniqueOrThrow({ where: { targetEventId: bad.event_id } });
      assert.deepEqual(
        {
          roomId: repair.roomId,
          eventType: repair.eventType,
          reason: repair.reason,
          status: repair.status,
          attempts: repair.attempts,
        },
        { roomId, eventType: "m.room.message", reason: "content is not an object", status: "pending", attempts: 1 },
      );
      assert.equal((await db.matrixEvent.findUniqueOrThrow({ where: { eventId: bad.event_id } })).status, "failed");
      assert.equal(await transaction(service, "bad-again", [bad]), 200);
      assert.equal(
        (await db.projectionRepair.findUniqueOrThrow({ where: { targetEventId: bad.event_id } })).attempts,
        2,
      );
    });

    test("a database failure is not acknowledged, and the retried transaction applies", async () => {
      const room = roomEvents(await recordRoom(service, siteId, "outage"));
      const events = [room.text(alice, "during the outage")];
      const db = service.services.db;
      await db.$executeRawUnsafe(`ALTER TABLE "MatrixEvent" RENAME TO "MatrixEventAway"`);
      try {
        assert.equal(await transaction(service, "outage", events), 500);
      } finally {
        await db.$executeRawUnsafe(`ALTER TABLE "MatrixEventAway" RENAME TO "MatrixEvent"`);
      }
      assert.equal(await transaction(service, "outage", events), 200);
      assert.deepEqual(
        (await query("outage")).data.map((m) => m.content.body),
        ["during the outage"],
      );
    });

    test("events of a room recorded later are applied once it is recorded", async () => {
      const roomId = `!later-${randomBytes(4).toString("hex")}:localhost`;
      const room = roomEvents(roomId);
      const comment = room.text(alice, "sent before the room was recorded");
      const early = [
        room.name(names.botUserId, `${siteId}/later`),
        room.member(alice, "Alice"),
        comment,
        room.reaction(bob, comment.event_id, "👍"),
      ];
      assert.equal(await transaction(service, "early", early), 200);
      assert.deepEqual((await query("later")).data, []);
      const db = service.services.db;
      assert.deepEqual(
        (await db.matrixEvent.findMany({ where: { roomId }, select: { status: true } })).map((e) => e.status),
        ["waiting", "waiting", "waiting", "waiting"],
      );

      const stream = await SseClient.open(`${service.url}/api/v1/sites/${siteId}/pages/later/sse`);
      try {
        await eventually(async () => stream.messages[0], 5_000, "the typing snapshot");
        await recordRoom(service, siteId, "later", roomId);
        const [listed] = (await query("later")).data;
        assert.equal(listed.content.body, "sent before the room was recorded");
        assert.equal(listed.author.display_name, "Alice");
        assert.deepEqual(listed.reactions, [{ key: "👍", count: 1, mine: false }]);
        assert.equal(
          (await db.roomState.findFirstOrThrow({ where: { roomId, type: "m.room.name" } })).content,
          JSON.stringify({ name: `${siteId}/later` }),
        );
        const created = await eventually(
          async () => stream.messages.find((m) => m.data.type === "message_created"),
          10_000,
          "message_created",
        );
        assert.deepEqual(created.data.payload, listed);
        assert.equal(await db.matrixEvent.count({ where: { roomId, status: { not: "applied" } } }), 0);
      } finally {
        stream.close();
      }
    });

    test("live events: each visible change once, with its payload", async () => {
      const room = roomEvents(await recordRoom(service, siteId, "live"));
      const stream = await SseClient.open(`${service.url}/api/v1/sites/${siteId}/pages/live/sse`);
      try {
        await eventually(async () => stream.messages[0], 5_000, "the typing snapshot");
        const comment = room.text(alice, "hello");
        const edit = room.edit(alice, comment.event_id, "hello, edited");
        const poll = room.poll(alice, "Q?", ["A", "B"]);
        const deletion = room.redaction(alice, comment.event_id, { submissionId: "delete-42" });
        const steps: RoomEvent[][] = [
          [room.member(alice, "Alice"), comment],
          [edit],
          [edit],
          [room.reaction(bob, comment.event_id, "👍")],
          [poll],
          [room.vote(bob, poll.event_id, "0")],
          [room.member(alice, "Alice B.")],
          [deletion],
          [deletion],
          [room.text(bob, "the end")],
        ];
        for (const [i, events] of steps.entries()) assert.equal(await transaction(service, `live-${i}`, events), 200);
        const comments = () => stream.messages.filter((m) => m.data.type !== "ephemeral").map((m) => m.data);
        await eventually(
          async () => comments().some((e) => e.payload.content?.body === "the end"),
          10_000,
          "the last comment",
        );
        const seen = comments();
        assert.deepEqual(
          seen.map((e) => `${e.type} ${e.payload.event_id}`),
          [
            `message_created ${comment.event_id}`,
            `message_updated ${comment.event_id}`,
            `message_annotations_changed ${comment.event_id}`,
            `message_created ${poll.event_id}`,
            `message_annotations_changed ${poll.event_id}`,
            `message_updated ${comment.event_id}`,
            `message_updated ${poll.event_id}`,
            `message_deleted ${comment.event_id}`,
            `message_created ${steps.at(-1)![0]!.event_id}`,
          ],
        );
        // message_created and message_updated carry the message as it is when delivered.
        assert.deepEqual(seen[2].payload, {
          event_id: comment.event_id,
          reactions: [{ key: "👍", count: 1, mine: false }],
        });
        assert.deepEqual(seen[4].payload, {
          event_id: poll.event_id,
          reactions: [],
          poll_responses: [
            { option_index: 0, count: 1 },
            { option_index: 1, count: 0 },
          ],
        });
        assert.equal(seen[6].payload.author.display_name, "Alice B.");
        assert.deepEqual(seen[7].payload, { event_id: comment.event_id, submission_id: "delete-42" });
      } finally {
        stream.close();
      }
    });

    test("end to end: a Matrix account posts, edits, reacts, renames and redacts in a page room", async () => {
      // The page room comes from a visitor's comment through the API.
      const visitor = new Visitor(service.url, TEST_ORIGIN);
      const path = `/api/v1/sites/${siteId}/pages/e2e/comments`;
      assert.equal(
        (
          await visitor.post(path, await visitor.commentBody(siteId, "e2e", "A visitor was here"), {
            "idempotency-key": "e2e",
          })
        ).status,
        202,
      );
      const first = await eventually(async () => (await query("e2e")).data[0], 30_000, "the visitor's comment");
      const roomId: string = first.room_id;
      // Its creation events, pushed as soon as the room exists (usually before it is recorded), are applied.
      const db = service.services.db;
      await eventually(
        async () => db.roomState.findFirst({ where: { roomId, type: "m.room.name" } }),
        10_000,
        "the room name",
      );
      assert.equal(await db.matrixEvent.count({ where: { roomId, status: "waiting" } }), 0);

      const stream = await SseClient.open(`${service.url}/api/v1/sites/${siteId}/pages/e2e/sse`);
      const seen = (type: string, check: (payload: any) => boolean) =>
        eventually(
          async () => stream.messages.find((m) => m.data.type === type && check(m.data.payload))?.data.payload,
          30_000,
          type,
        );
      try {
        await eventually(async () => stream.messages[0], 5_000, "the typing snapshot");
        const human = await registerMatrixUser(`proj${Date.now().toString(36)}${provider}`);
        const send = (type: string, txn: string, content: Record<string, unknown>) =>
          matrixRequest<{ event_id: string }>(
            "PUT",
            `/_matrix/client/v3/rooms/${enc(roomId)}/send/${type}/${txn}`,
            human.token,
            content,
          );
        await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, human.token, {});
        await matrixRequest("PUT", `/_matrix/client/v3/profile/${enc(human.userId)}/displayname`, human.token, {
          displayname: "Grace",
        });

        const { event_id: eventId } = await send("m.room.message", "post", {
          msgtype: "m.text",
          body: "Hello from Matrix",
        });
        const created = await seen("message_created", (p) => p.event_id === eventId);
        assert.deepEqual(
          [created.content.body, created.author.type, created.author.mxid],
          ["Hello from Matrix", "matrix", human.userId],
        );
        const listed = async () => (await query("e2e")).data.find((m) => m.event_id === eventId);
        assert.equal((await listed()).author.display_name, "Grace");

        await send("m.room.message", "edit", {
          msgtype: "m.text",
          body: "* Hello, edited",
          "m.new_content": { msgtype: "m.text", body: "Hello, edited" },
          "m.relates_to": { rel_type: "m.replace", event_id: eventId },
        });
        const updated = await seen("message_updated", (p) => p.event_id === eventId && p.status === "edited");
        assert.equal(updated.content.body, "Hello, edited");
        assert.equal((await listed()).content.body, "Hello, edited");

        await send("m.reaction", "react", {
          "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key: "👍" },
        });
        assert.deepEqual(await seen("message_annotations_changed", (p) => p.event_id === eventId), {
          event_id: eventId,
          reactions: [{ key: "👍", count: 1, mine: false }],
        });
        assert.deepEqual((await listed()).reactions, [{ key: "👍", count: 1, mine: false }]);

        await matrixRequest("PUT", `/_matrix/client/v3/profile/${enc(human.userId)}/displayname`, human.token, {
          displayname: "Grace H.",
        });
        await seen("message_updated", (p) => p.event_id === eventId && p.author.display_name === "Grace H.");
        assert.equal((await listed()).author.display_name, "Grace H.");

        await matrixRequest(
          "PUT",
          `/_matrix/client/v3/rooms/${enc(roomId)}/redact/${enc(eventId)}/redact`,
          human.token,
          { reason: "changed my mind" },
        );
        assert.deepEqual(await seen("message_deleted", (p) => p.event_id === eventId), { event_id: eventId });
        const tombstone = await listed();
        assert.deepEqual(
          [tombstone.status, tombstone.content, tombstone.reactions],
          ["redacted", { type: "redacted" }, []],
        );
        assert.equal((await query("e2e")).data[0].content.body, "A visitor was here");
      } finally {
        stream.close();
      }
    });
  });
}
