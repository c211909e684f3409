// The vertical slice, on real SQLite and real PostgreSQL against the real test Synapse:
// a visitor's comment goes through HTTP, the durable queue, Synapse, the appservice
// transaction stream and the projection, and comes back through QUERY and SSE.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import sodium from "sodium-native";
import { MatrixNames } from "../../src/matrix/names.ts";
import { PROOF_KEY } from "../../src/matrix/events.ts";
import { canonicalMessage } from "../../src/security/author-proof.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { eventually, PROVIDERS, serviceFor, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { SseClient } from "../support/sse.ts";
import { getEvent, getState, matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import { TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { listComments } from "../support/reads.ts";

const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);

for (const provider of PROVIDERS) {
  describe(`comment slice on ${provider}`, () => {
    const siteId = uniqueSiteId("slice");
    const page = "first-post";
    const commentsPath = `/api/v1/sites/${siteId}/pages/${page}/comments`;
    const running = serviceFor(provider, { sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
    let service: TestService;
    let visitor: Visitor;

    const list = (body: Record<string, unknown> = {}) => listComments(service, siteId, page, body);

    before(() => {
      service = running.service;
      visitor = new Visitor(service.url, TEST_ORIGIN);
    });

    test("a comment reaches Synapse, the read model and an open SSE stream", async () => {
      assert.deepEqual((await list()).data, [], "a declared site without comments lists an empty page");
      const stream = await SseClient.open(`${service.url}/api/v1/sites/${siteId}/pages/${page}/sse`);
      assert.equal(stream.status, 200);
      assert.match(stream.headers!.get("content-type") ?? "", /^text\/event-stream/);
      const snapshot = await eventually(async () => stream.messages[0], 5_000, "the typing snapshot");
      assert.deepEqual(snapshot.data, { type: "ephemeral", payload: { kind: "typing", users: [] } });
      try {
        const body = await visitor.commentBody(siteId, page, "Hello from a visitor 👋", { display_name: "Ada" });
        const res = await visitor.post(commentsPath, body, { "idempotency-key": "first" });
        assert.equal(res.status, 202);
        const { submission_id } = (await res.json()) as { submission_id: string };
        assert.match(submission_id, /^[0-9a-f-]{36}$/);

        const listed = await eventually(
          async () => (await list()).data.find((m) => m.submission_id === submission_id),
          30_000,
          "the comment in QUERY",
        );
        assert.equal(listed.status, "published");
        assert.deepEqual(listed.content, {
          type: "text",
          body: "Hello from a visitor 👋",
          format: null,
          formatted_body: null,
        });
        assert.equal(listed.author.type, "visitor");
        assert.equal(listed.author.public_key, visitor.key);
        assert.equal(listed.author.display_name, "Ada");
        assert.equal("mxid" in listed.author, false);
        assert.equal(listed.reply_to, null);
        assert.deepEqual(listed.reactions, []);

        // Matrix side: the event, its sender and its proof block.
        const roomId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}_${page}:${TEST_SERVER_NAME}`);
        assert.equal(listed.room_id, roomId);
        const event = await getEvent(roomId, listed.event_id);
        assert.equal(event.type, "m.room.message");
        assert.equal(event.sender, names.visitorUserId(siteId, visitor.publicKey));
        assert.match(event.sender, new RegExp(`^@${TEST_NAMESPACE_PREFIX}v_[0-9a-f]{32}:localhost$`));
        assert.equal(event.content.msgtype, "m.text");
        assert.equal(event.content.body, "Hello from a visitor 👋");
        const proof = event.content[PROOF_KEY];
        assert.equal(proof.public_key, visitor.key);
        assert.equal(proof.content, "Hello from a visitor 👋");
        assert.equal(proof.submission_id, submission_id);
        assert.equal(proof.challenge, body.challenge_response.split("|")[0]);
        const signed = signatureArrays.postComment(siteId, page, proof.content, null, null, proof.challenge);
        assert.ok(
          sodium.crypto_sign_verify_detached(
            Buffer.from(proof.signature, "base64url"),
            canonicalMessage(signed),
            visitor.publicKey,
          ),
          "the proof block verifies",
        );

        // The Space, its alias, the room linked into it, the bot as creator.
        const spaceId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}:${TEST_SERVER_NAME}`);
        const create = await getState(spaceId, "m.room.create");
        assert.equal(create.type, "m.space");
        assert.deepEqual((await getState(spaceId, "m.space.child", roomId)).via, [TEST_SERVER_NAME]);
        assert.equal((await getState(roomId, "m.space.parent", spaceId)).canonical, true);
        const roomCreate = await matrixRequest("GET", `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/state`);
        const createEvent = roomCreate.find((e: any) => e.type === "m.room.create");
        assert.equal(createEvent.sender, names.botUserId);
        assert.equal(createEvent.content.room_version, "12");
        const power = roomCreate.find((e: any) => e.type === "m.room.power_levels");
        assert.equal(power.content.events["m.room.tombstone"], 150);

        // SSE: message_created with the full message.
        const pushed = await eventually(
          async () => stream.messages.find((m) => m.data.type === "message_created"),
          10_000,
          "message_created on SSE",
        );
        assert.match(pushed.id ?? "", /^\d+$/);
        assert.deepEqual(pushed.data.payload, listed);
      } finally {
        stream.close();
      }
    });

    test("replies, Matrix-native comments, ordering and Last-Event-ID resume", async () => {
      const first = (await list()).data[0];
      const replyBody = await visitor.commentBody(siteId, page, "A reply", { reply_to: first.event_id });
      const res = await visitor.post(commentsPath, replyBody, { "idempotency-key": "reply" });
      assert.equal(res.status, 202);
      const reply = await eventually(
        async () => (await list()).data.find((m) => m.content.body === "A reply"),
        30_000,
        "the reply",
      );
      assert.equal(reply.reply_to, first.event_id);
      assert.equal(reply.thread_root, null);

      const threadBody = await visitor.commentBody(siteId, page, "In the thread", {
        reply_to: reply.event_id,
        thread_root: first.event_id,
      });
      assert.equal((await visitor.post(commentsPath, threadBody, { "idempotency-key": "thread" })).status, 202);
      const threaded = await eventually(
        async () => (await list()).data.find((m) => m.content.body === "In the thread"),
        30_000,
        "the thread message",
      );
      assert.equal(threaded.thread_root, first.event_id);
      assert.equal(threaded.reply_to, reply.event_id);
      const threadEvent = await getEvent(first.room_id, threaded.event_id);
      assert.deepEqual(threadEvent.content["m.relates_to"], {
        rel_type: "m.thread",
        event_id: first.event_id,
        is_falling_back: false,
        "m.in_reply_to": { event_id: reply.event_id },
      });

      // A regular Matrix account writes in the room directly.
      const roomId = first.room_id;
      const human = await registerMatrixUser(`human${Date.now().toString(36)}${provider}`);
      await matrixRequest("POST", `/_matrix/client/v3/join/${encodeURIComponent(roomId)}`, human.token, {});
      await matrixRequest(
        "PUT",
        `/_matrix/client/v3/profile/${encodeURIComponent(human.userId)}/displayname`,
        human.token,
        { displayname: "Grace" },
      );
      await matrixRequest(
        "PUT",
        `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/t1`,
        human.token,
        { msgtype: "m.text", body: "From Matrix" },
      );
      const native = await eventually(
        async () => (await list()).data.find((m) => m.content.body === "From Matrix"),
        30_000,
        "the Matrix-native comment",
      );
      assert.equal(native.author.type, "matrix");
      assert.equal(native.author.mxid, human.userId);
      assert.equal("public_key" in native.author, false);
      assert.equal("submission_id" in native, false);
      assert.equal(native.author.display_name, "Grace");

      // Ephemeral data of the room reaches SSE: typing (and its snapshot on connect), receipts, presence.
      const live = await SseClient.open(`${service.url}/api/v1/sites/${siteId}/pages/${page}/sse`);
      try {
        const ephemeral = (kind: string) =>
          live.messages.filter((m) => m.data.type === "ephemeral" && m.data.payload.kind === kind);
        await matrixRequest(
          "PUT",
          `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/typing/${encodeURIComponent(human.userId)}`,
          human.token,
          { typing: true, timeout: 30_000 },
        );
        const typing = await eventually(
          async () => ephemeral("typing").find((m) => m.data.payload.users.length > 0),
          15_000,
          "typing on SSE",
        );
        assert.deepEqual(typing.data.payload.users, [{ type: "matrix", mxid: human.userId, display_name: "Grace" }]);
        const again = await SseClient.open(`${service.url}/api/v1/sites/${siteId}/pages/${page}/sse`);
        try {
          const first = await eventually(async () => again.messages[0], 5_000, "the snapshot");
          assert.deepEqual(first.data.payload, {
            kind: "typing",
            users: [{ type: "matrix", mxid: human.userId, display_name: "Grace" }],
          });
        } finally {
          again.close();
        }
        await matrixRequest(
          "PUT",
          `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/typing/${encodeURIComponent(human.userId)}`,
          human.token,
          { typing: false },
        );
        await eventually(
          async () => ephemeral("typing").find((m) => m.data.payload.users.length === 0),
          15_000,
          "typing stopped",
        );

        await matrixRequest(
          "POST",
          `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/receipt/m.read/${encodeURIComponent(reply.event_id)}`,
          human.token,
          {},
        );
        const receipt = await eventually(async () => ephemeral("receipt")[0], 15_000, "a read receipt on SSE");
        assert.equal(receipt.data.payload.event_id, reply.event_id);
        assert.equal(receipt.data.payload.receipt_type, "m.read");
        assert.deepEqual(receipt.data.payload.user, { type: "matrix", mxid: human.userId, display_name: "Grace" });

        await matrixRequest(
          "PUT",
          `/_matrix/client/v3/presence/${encodeURIComponent(human.userId)}/status`,
          human.token,
          { presence: "unavailable" },
        );
        const presence = await eventually(
          async () => ephemeral("presence").find((m) => m.data.payload.presence === "unavailable"),
          15_000,
          "presence on SSE",
        );
        assert.deepEqual(presence.data.payload.user, { type: "matrix", mxid: human.userId, display_name: "Grace" });
      } finally {
        live.close();
      }

      const asc = await list();
      assert.deepEqual(
        asc.data.map((m) => m.content.body),
        ["Hello from a visitor 👋", "A reply", "In the thread", "From Matrix"],
      );
      assert.deepEqual(asc.meta, { total: 4, page: 1, per_page: 20, total_pages: 1 });
      const desc = await list({ order: "desc", per_page: 3, page: 1 });
      assert.deepEqual(
        desc.data.map((m) => m.content.body),
        ["From Matrix", "In the thread", "A reply"],
      );
      assert.deepEqual(desc.meta, { total: 4, page: 1, per_page: 3, total_pages: 2 });
      assert.deepEqual(
        (await list({ order: "desc", per_page: 3, page: 2 })).data.map((m) => m.content.body),
        ["Hello from a visitor 👋"],
      );

      const resumed = await SseClient.open(`${service.url}/api/v1/sites/${siteId}/pages/${page}/sse`, {
        "last-event-id": "0",
      });
      try {
        const created = () => resumed.messages.filter((m) => m.data.type === "message_created");
        const replayed = await eventually(
          async () => (created().length >= 4 ? created() : null),
          10_000,
          "replayed events",
        );
        assert.deepEqual(
          replayed.map((m) => m.data.payload.content.body),
          ["Hello from a visitor 👋", "A reply", "In the thread", "From Matrix"],
        );
        assert.equal(resumed.messages[0]!.data.type, "ephemeral", "the typing snapshot comes first");
      } finally {
        resumed.close();
      }
    });
  });
}
