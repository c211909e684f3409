// The read cache (src/rest/cached-reads.ts) on real SQLite and PostgreSQL against the real test
// Synapse: public reads are served from cached bodies (shown by changing a row directly, behind
// the projection's back: the cached read does not see it), and every kind of change made in
// Matrix, projected as usual, drops them: no stale read survives it.
//
// How "survives" is checked without timing: the change is first seen in the database (the
// projection committed it), then the read must show it within a few seconds — far less than the
// cache's minute-bounded expiry would take to hide a missing invalidation most of the time, and
// the priming read right before each change makes sure a cached body was there to drop.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { MatrixNames } from "../../src/matrix/names.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import {
  eventually,
  PROVIDERS,
  serviceFor,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { getState, matrixRequest, registerMatrixUser } from "../support/matrix.ts";
import { TEST_OPERATOR_TOKEN, TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { listComments } from "../support/reads.ts";

const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const enc = encodeURIComponent;
let txn = 0;

/** Sends a room event as a regular account (or, without a token, as the appservice bot / `asUser`). */
async function send(
  roomId: string,
  type: string,
  content: Record<string, unknown>,
  token?: string,
  asUser?: string,
): Promise<string> {
  const query = asUser ? `?user_id=${enc(asUser)}` : "";
  const res = await matrixRequest<{ event_id: string }>(
    "PUT",
    `/_matrix/client/v3/rooms/${enc(roomId)}/send/${enc(type)}/rc${Date.now()}-${txn++}${query}`,
    token,
    content,
  );
  return res.event_id;
}

for (const provider of PROVIDERS) {
  describe(`read cache on ${provider}`, () => {
    const siteId = uniqueSiteId("cache");
    const page = "cached";
    const pagePath = `/api/v1/sites/${siteId}/pages/${page}`;
    const running = serviceFor(provider, { sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
    let service: TestService;
    let visitor: Visitor;
    let roomId: string;
    let alice: { userId: string; token: string };
    let first: string;

    const list = (body: Record<string, unknown> = {}) => listComments(service, siteId, page, body);
    const get = async (path: string) => {
      const res = await fetch(`${service.url}${path}`);
      return { status: res.status, body: (await res.json()) as any };
    };
    const personal = (who: Visitor) => ({
      author_public_key: who.key,
      author_signature: who.sign(signatureArrays.queryComments(siteId, page)),
    });
    const comment = (body: any, eventId: string) => body.data.find((m: any) => m.event_id === eventId);
    /** Waits until the projection committed what `committed` checks, then the read must show it soon. */
    const afterCommit = async <T>(
      what: string,
      committed: () => Promise<unknown>,
      read: () => Promise<T | null | false>,
    ) => {
      await eventually(async () => Boolean(await committed()), 30_000, `${what} to be projected`);
      return eventually(read, 3_000, `the read to show ${what}`);
    };

    before(async () => {
      service = running.service;
      visitor = new Visitor(service.url, TEST_ORIGIN);
      const res = await visitor.post(`${pagePath}/comments`, await visitor.commentBody(siteId, page, "First"), {
        "idempotency-key": "first",
      });
      assert.equal(res.status, 202, await res.text());
      const listed = await eventually(async () => (await list()).data[0], 30_000, "the first comment");
      first = listed.event_id;
      roomId = listed.room_id;
      alice = await registerMatrixUser(`alice${Date.now().toString(36)}${provider}`);
      await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, alice.token, {});
      await eventually(
        () => service.services.db.roomMember.findFirst({ where: { roomId, userId: alice.userId, membership: "join" } }),
        30_000,
        "alice's join",
      );
    });

    test("reads are served from the cache: a change behind the projection's back is not seen", async () => {
      const db = service.services.db;
      const before = await list();
      const room = await get(`${pagePath}/room`);
      assert.equal(room.status, 200);
      const original = await db.comment.findUniqueOrThrow({ where: { eventId: first } });
      await db.comment.update({
        where: { eventId: first },
        data: { content: JSON.stringify({ type: "text", body: "tampered", format: null, formatted_body: null }) },
      });
      await db.roomState.upsert({
        where: { roomId_type_stateKey: { roomId, type: "m.room.topic", stateKey: "" } },
        create: {
          roomId,
          type: "m.room.topic",
          stateKey: "",
          eventId: "$tampered",
          originServerTs: 1n,
          content: JSON.stringify({ topic: "tampered" }),
        },
        update: { content: JSON.stringify({ topic: "tampered" }) },
      });
      try {
        assert.deepEqual(await list(), before, "the list came from the cache");
        assert.deepEqual(await get(`${pagePath}/room`), room, "the room came from the cache");
        // A personalized read is the cached page plus the viewer's reactions.
        assert.equal(comment(await list(personal(visitor)), first).content.body, "First");
        // A different read (other inputs) is executed: it sees the row as it is now.
        assert.equal(comment(await list({ per_page: 5 }), first).content.body, "tampered");
      } finally {
        await db.comment.update({ where: { eventId: first }, data: { content: original.content } });
        await db.roomState.deleteMany({ where: { roomId, type: "m.room.topic", eventId: "$tampered" } });
        // The next projected change of the page drops what the tampering left in the cache.
        service.services.signals.pageChanged({ siteId, pageSlug: page });
      }
      assert.equal(comment(await list(), first).content.body, "First");
      assert.equal((await get(`${pagePath}/room`)).body.topic, room.body.topic);
    });

    test("concurrent misses of one read run it once (single flight)", async () => {
      const executions = () => service.services.metrics.sources.readCache!().executions;
      // A change the service itself projects meanwhile (a late event of the page's setup), or a
      // cached body expiring at a whole minute, rightly starts a second execution: such a window
      // is measured again, and the assertion is made on one that had neither.
      let changes = 0;
      const stopListening = service.services.signals.onPageChanged(() => changes++);
      try {
        for (let attempt = 1; ; attempt++) {
          await list();
          const before = executions();
          service.services.signals.pageChanged({ siteId, pageSlug: page });
          changes = 0;
          const minute = Math.floor(Date.now() / 60_000);
          const bodies = await Promise.all(Array.from({ length: 50 }, () => list()));
          const disturbed = changes > 0 || Math.floor(Date.now() / 60_000) !== minute;
          if (disturbed && attempt < 5) continue;
          assert.equal(executions() - before, 1, `attempt ${attempt}, ${changes} changes meanwhile`);
          for (const body of bodies) assert.deepEqual(body, bodies[0]);
          break;
        }
      } finally {
        stopListening();
      }
    });

    test("validation and the signature check stay in front of the cache", async () => {
      await list();
      const bad = await fetch(`${service.url}${pagePath}/comments`, {
        method: "QUERY",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ per_page: 0 }),
      });
      assert.equal(bad.status, 400);
      const forged = {
        author_public_key: visitor.key,
        author_signature: new Visitor(service.url).sign(signatureArrays.queryComments(siteId, page)),
      };
      const res = await fetch(`${service.url}${pagePath}/comments`, {
        method: "QUERY",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(forged),
      });
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as { code: string }).code, "invalid-signature");
    });

    test("a new comment (visitor, through Matrix) and one from a Matrix account drop the cached list", async () => {
      const total = (await list()).meta.total;
      const res = await visitor.post(`${pagePath}/comments`, await visitor.commentBody(siteId, page, "Second"), {
        "idempotency-key": "second",
      });
      assert.equal(res.status, 202);
      await afterCommit(
        "the visitor's comment",
        () => service.services.db.comment.count({ where: { siteId, pageSlug: page } }).then((n) => n === total + 1),
        async () => (await list()).meta.total === total + 1,
      );
      await list();
      const eventId = await send(roomId, "m.room.message", { msgtype: "m.text", body: "From Matrix" }, alice.token);
      const body = await afterCommit(
        "alice's comment",
        () => service.services.db.comment.findUnique({ where: { eventId } }),
        async () => {
          const b = await list();
          return comment(b, eventId) ? b : null;
        },
      );
      assert.equal(body.meta.total, total + 2);
    });

    test("an edit, a reaction, a vote and a redaction made in Matrix each drop it", async () => {
      const db = service.services.db;
      const eventId = await send(roomId, "m.room.message", { msgtype: "m.text", body: "Original" }, alice.token);
      await afterCommit(
        "the comment",
        () => db.comment.findUnique({ where: { eventId } }),
        async () => comment(await list(), eventId),
      );

      await list();
      await send(
        roomId,
        "m.room.message",
        {
          msgtype: "m.text",
          body: "* Edited",
          "m.new_content": { msgtype: "m.text", body: "Edited" },
          "m.relates_to": { rel_type: "m.replace", event_id: eventId },
        },
        alice.token,
      );
      await afterCommit(
        "the edit",
        () => db.comment.findFirst({ where: { eventId, status: "edited" } }),
        async () => comment(await list(), eventId).content.body === "Edited",
      );

      await list();
      await send(
        roomId,
        "m.reaction",
        { "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key: "🎉" } },
        alice.token,
      );
      await afterCommit(
        "the reaction",
        () => db.reaction.findFirst({ where: { targetEventId: eventId } }),
        async () => comment(await list(), eventId).reactions.length === 1,
      );

      const poll = await send(
        roomId,
        "m.poll.start",
        {
          "m.poll": {
            question: { "m.text": [{ body: "Tea?" }] },
            kind: "m.disclosed",
            max_selections: 1,
            answers: [
              { id: "yes", "m.text": [{ body: "Yes" }] },
              { id: "no", "m.text": [{ body: "No" }] },
            ],
          },
        },
        alice.token,
      );
      await afterCommit(
        "the poll",
        () => db.comment.findUnique({ where: { eventId: poll } }),
        async () => comment(await list(), poll),
      );
      await list();
      await send(
        roomId,
        "m.poll.response",
        { "m.selections": ["yes"], "m.relates_to": { rel_type: "m.reference", event_id: poll } },
        alice.token,
      );
      const counted = (c: any) => c?.content?.responses?.some((r: any) => r.count === 1);
      await afterCommit(
        "the vote",
        async () =>
          counted({ content: JSON.parse((await db.comment.findUniqueOrThrow({ where: { eventId: poll } })).content) }),
        async () => counted(comment(await list(), poll)),
      );

      await list();
      await matrixRequest(
        "PUT",
        `/_matrix/client/v3/rooms/${enc(roomId)}/redact/${enc(eventId)}/rc${Date.now()}-${txn++}`,
        alice.token,
        {},
      );
      await afterCommit(
        "the redaction",
        () => db.comment.findFirst({ where: { eventId, status: "redacted" } }),
        async () => comment(await list(), eventId).status === "redacted",
      );
    });

    test("a rename in Matrix drops the list; a power-level change drops the rosters", async () => {
      const db = service.services.db;
      const name = `Alice ${Date.now()}`;
      await list();
      await matrixRequest("PUT", `/_matrix/client/v3/profile/${enc(alice.userId)}/displayname`, alice.token, {
        displayname: name,
      });
      await afterCommit(
        "the rename",
        () => db.roomMember.findFirst({ where: { roomId, userId: alice.userId, displayName: name } }),
        async () =>
          (await list({ per_page: 100 })).data.some(
            (m: any) => m.author.mxid === alice.userId && m.author.display_name === name,
          ),
      );

      for (const path of ["roles", "moderators"]) assert.equal((await get(`${pagePath}/${path}`)).status, 200);
      const current = await getState(roomId, "m.room.power_levels");
      await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.power_levels/`, undefined, {
        ...current,
        users: { ...current.users, [alice.userId]: 50 },
      });
      const isModerator = (b: any) => b.moderators.some((m: any) => m.user_id === alice.userId);
      await afterCommit(
        "the power levels",
        async () =>
          (
            await db.roomState.findUnique({
              where: { roomId_type_stateKey: { roomId, type: "m.room.power_levels", stateKey: "" } },
            })
          )?.content.includes(alice.userId),
        async () =>
          isModerator((await get(`${pagePath}/roles`)).body) && isModerator((await get(`${pagePath}/moderators`)).body),
      );
    });

    test("personalized reads overlay `mine` on the cached page", async () => {
      const db = service.services.db;
      const viewerId = names.visitorUserId(siteId, visitor.publicKey);
      await list();
      // The visitor's virtual user reacts (as the appservice sends for it), and so does alice.
      await send(
        roomId,
        "m.reaction",
        { "m.relates_to": { rel_type: "m.annotation", event_id: first, key: "👍" } },
        undefined,
        viewerId,
      );
      await send(
        roomId,
        "m.reaction",
        { "m.relates_to": { rel_type: "m.annotation", event_id: first, key: "👍" } },
        alice.token,
      );
      await send(
        roomId,
        "m.reaction",
        { "m.relates_to": { rel_type: "m.annotation", event_id: first, key: "❤️" } },
        alice.token,
      );
      await afterCommit(
        "the reactions",
        async () => (await db.reaction.count({ where: { targetEventId: first } })) === 3,
        async () => comment(await list(), first).reactions.length === 2,
      );
      const anonymous = comment(await list(), first).reactions;
      assert.deepEqual(anonymous, [
        { key: "👍", count: 2, mine: false },
        { key: "❤️", count: 1, mine: false },
      ]);
      assert.deepEqual(comment(await list(personal(visitor)), first).reactions, [
        { key: "👍", count: 2, mine: true },
        { key: "❤️", count: 1, mine: false },
      ]);
      assert.deepEqual(
        comment(await list(personal(new Visitor(service.url))), first).reactions,
        anonymous,
        "another viewer: nothing is mine",
      );
      assert.deepEqual(
        comment(await list(), first).reactions,
        anonymous,
        "the cached anonymous body is untouched by overlays",
      );
      // A personalized read that misses reads the page and then its overlay in one request, from the rows the page read loaded.
      service.services.signals.pageChanged({ siteId, pageSlug: page });
      assert.deepEqual(comment(await list(personal(visitor)), first).reactions, [
        { key: "👍", count: 2, mine: true },
        { key: "❤️", count: 1, mine: false },
      ]);
      assert.deepEqual(
        comment(await list(), first).reactions,
        anonymous,
        "the anonymous body it stored has nothing personal",
      );
    });

    test("with the cache off, a read runs as declared: the same bodies, a personalized one in one execution", async () => {
      const db = service.services.db;
      const viewerId = names.visitorUserId(siteId, visitor.publicKey);
      // A second key of the viewer's on the first comment: its page rows come once per key.
      await send(
        roomId,
        "m.reaction",
        { "m.relates_to": { rel_type: "m.annotation", event_id: first, key: "❤️" } },
        undefined,
        viewerId,
      );
      await afterCommit(
        "the viewer's second key",
        async () => (await db.reaction.count({ where: { targetEventId: first } })) === 4,
        async () => comment(await list(), first).reactions[1].count === 2,
      );
      const uncached = await startTestService({
        databaseUrl: service.config.database.url,
        sites: { [siteId]: { origins: [TEST_ORIGIN] } },
        overrides: { "server.listen_port": 0, "read_cache.max_entries": 0 },
        worker: false,
      });
      try {
        const off = (body: Record<string, unknown> = {}) => listComments(uncached, siteId, page, body);
        const executions = () => uncached.services.metrics.sources.readCache!().executions;
        const mine = [
          { key: "👍", count: 2, mine: true },
          { key: "❤️", count: 2, mine: true },
        ];
        for (const body of [
          {},
          { order: "desc" },
          personal(visitor),
          { ...personal(visitor), order: "desc", per_page: 1 },
          personal(new Visitor(service.url)),
        ]) {
          const before = executions();
          assert.deepEqual(
            await off(body),
            await list(body),
            `as the cached instance answers ${JSON.stringify(Object.keys(body))}`,
          );
          assert.equal(executions() - before, 1, "one execution per read");
        }
        assert.deepEqual(comment(await off(personal(visitor)), first).reactions, mine);
        assert.deepEqual(
          comment(await off(), first).reactions,
          mine.map((r) => ({ ...r, mine: false })),
        );
        // Refusals as with the cache: a proof is judged after the site is found.
        const refused = async (site: string, body: Record<string, unknown>) => {
          const res = await fetch(`${uncached.url}/api/v1/sites/${site}/pages/${page}/comments`, {
            method: "QUERY",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          });
          return [res.status, ((await res.json()) as { code: string }).code];
        };
        const forged = { ...personal(visitor), author_signature: personal(new Visitor(service.url)).author_signature };
        assert.deepEqual(await refused(siteId, forged), [403, "invalid-signature"]);
        assert.deepEqual(await refused(siteId, { author_public_key: visitor.key }), [400, "validation-error"]);
        assert.deepEqual(await refused(uniqueSiteId("unknown"), forged), [404, "site-not-found"]);
      } finally {
        await uncached.stop();
      }
    });

    test("retiring the page drops its reads at once", async () => {
      assert.equal((await get(`${pagePath}/room`)).status, 200);
      await list();
      const res = await fetch(`${service.url}/api/v1/operator/rooms/${enc(roomId)}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
      });
      assert.equal(res.status, 200, await res.text());
      const gone = await get(`${pagePath}/room`);
      assert.equal(gone.status, 404, "no cached room info survives the retirement request");
      assert.equal(gone.body.code, "room-not-found");
      // Once the pass has cleared the page's rows, the list is empty (tombstones and all).
      await afterCommit(
        "the cleared page",
        async () => (await service.services.db.room.count({ where: { roomId } })) === 0,
        async () => (await list()).meta.total === 0,
      );
    });
  });
}
