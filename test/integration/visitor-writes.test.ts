// Every visitor write through real HTTP, the queue, the real test Synapse and the projection:
// edit, delete (both path forms each), reactions, polls, votes and locations, and every way
// they are refused before the 202/204.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { eventually, PROVIDERS, serviceFor, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { SseClient } from "../support/sse.ts";
import { getEvent, matrixRequest, registerMatrixUser } from "../support/matrix.ts";
import { expectProblem } from "../support/problems.ts";
import { listComments } from "../support/reads.ts";

const enc = encodeURIComponent;
const FAMILY = "👩‍👩‍👧‍👦"; // one grapheme cluster of 7 code points

for (const provider of PROVIDERS) {
  describe(`visitor writes on ${provider}`, () => {
    const siteId = uniqueSiteId("writes");
    const page = "page";
    const base = `/api/v1/sites/${siteId}/pages/${page}`;
    const running = serviceFor(provider, { sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
    let service: TestService;
    let alice: Visitor;
    let bob: Visitor;

    const list = async (body: Record<string, unknown> = {}) =>
      (await listComments(service, siteId, page, { per_page: 100, ...body })).data;
    const find = (predicate: (m: any) => boolean, what: string, body: Record<string, unknown> = {}) =>
      eventually(async () => (await list(body)).find(predicate), 30_000, what);
    const submissions = () => service.services.db.submission.count();

    async function comment(visitor: Visitor, text: string, extra: { reply_to?: string; thread_root?: string } = {}) {
      const res = await visitor.post(`${base}/comments`, await visitor.commentBody(siteId, page, text, extra), {
        "idempotency-key": `c-${Math.random()}`,
      });
      assert.equal(res.status, 202);
      const { submission_id } = (await res.json()) as { submission_id: string };
      return find((m) => m.submission_id === submission_id, `comment "${text}"`);
    }

    const edit = async (visitor: Visitor, commentId: string, content: string, key = `e-${Math.random()}`) =>
      visitor.send(
        "PATCH",
        `${base}/comments/${enc(commentId)}`,
        {
          content,
          ...(await visitor.proof((ch) => signatureArrays.editComment(siteId, page, commentId, content, ch))),
        },
        { "idempotency-key": key },
      );
    const remove = async (visitor: Visitor, commentId: string) =>
      visitor.send(
        "DELETE",
        `${base}/comments/${enc(commentId)}`,
        await visitor.proof((ch) => signatureArrays.deleteComment(siteId, page, commentId, ch)),
        { "idempotency-key": `d-${Math.random()}` },
      );
    const react = async (visitor: Visitor, commentId: string, key: string) =>
      visitor.send("POST", `${base}/comments/${enc(commentId)}/reactions`, {
        key,
        ...(await visitor.proof((ch) => signatureArrays.react(siteId, page, commentId, key, ch))),
      });
    const unreact = async (visitor: Visitor, commentId: string, key: string) =>
      visitor.send(
        "DELETE",
        `${base}/comments/${enc(commentId)}/reactions/${enc(key)}`,
        await visitor.proof((ch) => signatureArrays.unreact(siteId, page, commentId, key, ch)),
      );
    const poll = async (visitor: Visitor, question: string, options: string[], extra: Record<string, unknown> = {}) =>
      visitor.send(
        "POST",
        `${base}/polls`,
        {
          question,
          options,
          ...extra,
          ...(await visitor.proof((ch) =>
            signatureArrays.createPoll(siteId, page, question, options, 1, null, null, ch),
          )),
        },
        { "idempotency-key": `p-${Math.random()}` },
      );
    const voteFor = async (visitor: Visitor, pollId: string, optionId: string) =>
      visitor.send("POST", `${base}/polls/${enc(pollId)}/votes`, {
        option_id: optionId,
        ...(await visitor.proof((ch) => signatureArrays.vote(siteId, page, pollId, optionId, ch))),
      });
    const personalized = (visitor: Visitor) => ({
      author_public_key: visitor.key,
      author_signature: visitor.sign(signatureArrays.queryComments(siteId, page)),
    });

    before(() => {
      service = running.service;
      alice = new Visitor(service.url, TEST_ORIGIN);
      bob = new Visitor(service.url, TEST_ORIGIN);
    });

    test("edit: the author's m.replace shows as edited; both path forms; others are refused", async () => {
      const original = await comment(alice, "first draft");
      const res = await edit(alice, original.event_id, "second draft");
      assert.equal(res.status, 202);
      const edited = await find(
        (m) => m.event_id === original.event_id && m.content.body === "second draft",
        "the edit",
      );
      assert.equal(edited.status, "edited");
      assert.match(edited.edited_at, /^\d{4}-/);
      assert.equal(edited.submission_id, original.submission_id, "the comment keeps the submission that created it");

      // Matrix side: an m.replace by the visitor's virtual user.
      const { submission_id } = (await (await edit(alice, original.event_id, "third draft")).json()) as {
        submission_id: string;
      };
      const row = await eventually(
        () =>
          service.services.db.submission
            .findUnique({ where: { id: submission_id } })
            .then((s) => (s?.eventId ? s : null)),
        30_000,
        "the edit sent",
      );
      const event = await getEvent(original.room_id, row.eventId!);
      assert.deepEqual(event.content["m.relates_to"], { rel_type: "m.replace", event_id: original.event_id });
      assert.deepEqual(event.content["m.new_content"], { msgtype: "m.text", body: "third draft" });

      // Alternate form: comment_id in the body.
      const content = "fourth draft";
      const alt = await alice.send(
        "PATCH",
        `${base}/comments`,
        {
          comment_id: original.event_id,
          content,
          ...(await alice.proof((ch) => signatureArrays.editComment(siteId, page, original.event_id, content, ch))),
        },
        { "idempotency-key": "alt-edit" },
      );
      assert.equal(alt.status, 202);
      await find(
        (m) => m.event_id === original.event_id && m.content.body === "fourth draft",
        "the alternate-form edit",
      );

      const before = await submissions();
      await expectProblem(await edit(bob, original.event_id, "hijack"), 403, "not-author");
      assert.equal(await submissions(), before, "a refused edit queues nothing");
    });

    test("delete: a tombstone that exposes nothing, message_deleted with the submission; no more writes on it", async () => {
      const target = await comment(alice, "to be deleted");
      const reply = await comment(bob, "a reply", { reply_to: target.event_id });
      assert.equal(reply.reply_to, target.event_id);
      const stream = await SseClient.open(`${service.url}${base}/sse`);
      try {
        await eventually(async () => stream.messages[0], 5_000, "the stream's first message");
        await expectProblem(await remove(bob, target.event_id), 403, "not-author");
        const res = await remove(alice, target.event_id);
        assert.equal(res.status, 202);
        const { submission_id } = (await res.json()) as { submission_id: string };
        const tombstone = await find((m) => m.event_id === target.event_id && m.status === "redacted", "the tombstone");
        assert.deepEqual(tombstone.content, { type: "redacted" });
        assert.equal(tombstone.reply_to, null);
        assert.equal(tombstone.thread_root, null);
        const deleted = await eventually(
          async () => stream.messages.find((m) => m.data.type === "message_deleted"),
          20_000,
          "message_deleted",
        );
        assert.equal(deleted.data.payload.event_id, target.event_id);
        assert.equal(deleted.data.payload.submission_id, submission_id);
      } finally {
        stream.close();
      }
      await expectProblem(await edit(alice, target.event_id, "revive"), 409, "comment-redacted");
      await expectProblem(await remove(alice, target.event_id), 409, "comment-redacted");
      await expectProblem(await react(alice, target.event_id, "👍"), 409, "comment-redacted");
      const replyBody = await alice.commentBody(siteId, page, "reply to a ghost", { reply_to: target.event_id });
      await expectProblem(
        await alice.post(`${base}/comments`, replyBody, { "idempotency-key": "ghost" }),
        409,
        "comment-redacted",
      );

      // Alternate form: ?comment_id=.
      const other = await comment(alice, "delete me by query");
      const res = await alice.send(
        "DELETE",
        `${base}/comments?comment_id=${enc(other.event_id)}`,
        await alice.proof((ch) => signatureArrays.deleteComment(siteId, page, other.event_id, ch)),
        {
          "idempotency-key": "by-query",
        },
      );
      assert.equal(res.status, 202);
      await find((m) => m.event_id === other.event_id && m.status === "redacted", "the tombstone by query");
    });

    test("reactions: 204, counted once per visitor, mine on personalized reads, unreact also when absent", async () => {
      const target = await comment(bob, "react to me");
      assert.equal((await react(alice, target.event_id, " 👍 ")).status, 204, "the key is trimmed");
      assert.equal((await react(bob, target.event_id, "👍")).status, 204);
      const counted = await find(
        (m) => m.event_id === target.event_id && m.reactions.some((r: any) => r.key === "👍" && r.count === 2),
        "two 👍",
      );
      assert.deepEqual(counted.reactions, [{ key: "👍", count: 2, mine: false }], "anonymous reads never say mine");
      assert.equal((await react(alice, target.event_id, "👍")).status, 204, "a duplicate annotation is a success");
      const mine = (await list(personalized(alice))).find((m) => m.event_id === target.event_id);
      assert.deepEqual(mine.reactions, [{ key: "👍", count: 2, mine: true }]);

      assert.equal((await unreact(alice, target.event_id, "👍")).status, 204);
      await find(
        (m) => m.event_id === target.event_id && m.reactions.length === 1 && m.reactions[0].count === 1,
        "one 👍 left",
      );
      const after = (await list(personalized(alice))).find((m) => m.event_id === target.event_id);
      assert.deepEqual(after.reactions, [{ key: "👍", count: 1, mine: false }]);
      assert.equal((await unreact(alice, target.event_id, "🎉")).status, 204, "unreacting what is absent is a success");

      await expectProblem(await react(alice, "$nope", "👍"), 404, "comment-not-found");
      await expectProblem(await react(alice, target.event_id, "   "), 400, "validation-error");
      await expectProblem(await react(alice, target.event_id, FAMILY.repeat(33)), 400, "validation-error");
      assert.equal(
        (await react(alice, target.event_id, FAMILY.repeat(32))).status,
        204,
        "32 clusters of 7 code points each are fine",
      );
      await expectProblem(await react(alice, target.event_id, "a\u0007"), 400, "validation-error");
    });

    test("polls and votes: MSC3381 events, counts, a newer vote replaces the earlier one", async () => {
      const res = await poll(alice, "Tea or coffee?", ["Tea", "Coffee", "Neither"]);
      assert.equal(res.status, 202);
      const { submission_id } = (await res.json()) as { submission_id: string };
      const listed = await find((m) => m.submission_id === submission_id, "the poll");
      assert.deepEqual(listed.content.question, "Tea or coffee?");
      assert.deepEqual(listed.content.options, [
        { id: "0", text: "Tea" },
        { id: "1", text: "Coffee" },
        { id: "2", text: "Neither" },
      ]);
      const event = await getEvent(listed.room_id, listed.event_id);
      assert.equal(event.content.msgtype, "org.matrix.msc3381.poll.start");
      assert.equal(event.content.body, "Tea or coffee?\n1. Tea\n2. Coffee\n3. Neither");

      assert.equal((await voteFor(alice, listed.event_id, "0")).status, 204);
      assert.equal((await voteFor(bob, listed.event_id, "0")).status, 204);
      const counts = (m: any) => Object.fromEntries(m.content.responses.map((r: any) => [r.option_index, r.count]));
      await find((m) => m.event_id === listed.event_id && counts(m)[0] === 2, "two votes for Tea");
      assert.equal((await voteFor(bob, listed.event_id, "1")).status, 204);
      const replaced = await find(
        (m) => m.event_id === listed.event_id && counts(m)[1] === 1,
        "bob's vote moved to Coffee",
      );
      assert.deepEqual(counts(replaced), { 0: 1, 1: 1, 2: 0 });

      await expectProblem(await voteFor(alice, listed.event_id, "7"), 400, "validation-error");
      const text = await comment(alice, "not a poll");
      await expectProblem(await voteFor(alice, text.event_id, "0"), 404, "poll-not-found");
    });

    test("poll limits: 500 vs 501 clusters, options count and text, max_selections", async () => {
      const before = await submissions();
      assert.equal((await poll(alice, FAMILY.repeat(500), ["a", "b"])).status, 202);
      await expectProblem(await poll(alice, FAMILY.repeat(501), ["a", "b"]), 400, "validation-error");
      await expectProblem(await poll(alice, "Q?", ["only one"]), 400, "validation-error");
      await expectProblem(
        await poll(
          alice,
          "Q?",
          Array.from({ length: 21 }, (_, i) => `o${i}`),
        ),
        400,
        "validation-error",
      );
      await expectProblem(await poll(alice, " Q?", ["a", "b"]), 400, "validation-error");
      await expectProblem(await poll(alice, "Q?", ["a", "x".repeat(201)]), 400, "validation-error");
      await expectProblem(await poll(alice, "Q?", ["a", "b"], { max_selections: 2 }), 400, "validation-error");
      assert.equal(await submissions(), before + 1, "only the valid poll was queued");
    });

    test("locations: MSC3488 m.location, geo URIs validated", async () => {
      const geo = "geo:48.2010,16.3695;u=35";
      const body = {
        geo_uri: geo,
        description: "Vienna",
        display_name: "Ada",
        ...(await alice.proof((ch) => signatureArrays.locate(siteId, page, geo, null, null, ch))),
      };
      const res = await alice.send("POST", `${base}/location`, body, { "idempotency-key": "loc" });
      assert.equal(res.status, 202);
      const { submission_id } = (await res.json()) as { submission_id: string };
      const listed = await find((m) => m.submission_id === submission_id, "the location");
      assert.equal(listed.content.type, "location");
      assert.equal(listed.content.geo_uri, geo);
      assert.equal(listed.content.description, "Vienna");
      const event = await getEvent(listed.room_id, listed.event_id);
      assert.equal(event.content.msgtype, "m.location");
      for (const bad of ["geo:91,0", "geo:0,181", "geo:0", "http://x", "geo:1,2;crs=utm"]) {
        const b = {
          geo_uri: bad,
          ...(await alice.proof((ch) => signatureArrays.locate(siteId, page, bad, null, null, ch))),
        };
        await expectProblem(
          await alice.send("POST", `${base}/location`, b, { "idempotency-key": `bad-${bad}` }),
          400,
          "validation-error",
        );
      }
    });

    test("relations: a thread root inside a thread, unknown targets and ids with / are refused before the 202", async () => {
      const root = await comment(alice, "thread root");
      const member = await comment(bob, "in the thread", { thread_root: root.event_id });
      assert.equal(member.thread_root, root.event_id);
      const both = await comment(alice, "reply in the thread", {
        thread_root: root.event_id,
        reply_to: member.event_id,
      });
      assert.equal(both.reply_to, member.event_id);
      assert.equal(both.thread_root, root.event_id);
      const nested = await alice.commentBody(siteId, page, "nested", { thread_root: member.event_id });
      await expectProblem(
        await alice.post(`${base}/comments`, nested, { "idempotency-key": "nested" }),
        400,
        "validation-error",
      );
      // A room v3 style id containing '/', percent-encoded: decoded, looked up, not found.
      await expectProblem(await edit(alice, "$abc/def+ghi", "x"), 404, "comment-not-found");
    });

    test("a Matrix account's comment is not manageable through the API", async () => {
      const first = await comment(alice, "so the room exists");
      const user = await registerMatrixUser(`writer${Math.random().toString(36).slice(2, 8)}`);
      await matrixRequest("POST", `/_matrix/client/v3/join/${enc(first.room_id)}`, user.token, {});
      const sent = await matrixRequest<{ event_id: string }>(
        "PUT",
        `/_matrix/client/v3/rooms/${enc(first.room_id)}/send/m.room.message/t1`,
        user.token,
        { msgtype: "m.text", body: "from Matrix" },
      );
      const native = await find((m) => m.event_id === sent.event_id, "the Matrix-native comment");
      assert.equal(native.author.type, "matrix");
      await expectProblem(await edit(alice, native.event_id, "mine now"), 403, "not-manageable");
      await expectProblem(await remove(alice, native.event_id), 403, "not-manageable");
      assert.equal((await react(alice, native.event_id, "👀")).status, 204, "reacting to it is fine");
    });

    test("an oversized comment is refused before the 202", async () => {
      const before = await submissions();
      // 10,000 clusters of 4 bytes: within the grapheme limit, but twice 40 KB does not fit one event.
      const body = await alice.commentBody(siteId, page, "😀".repeat(10_000));
      const problem = (await expectProblem(
        await alice.post(`${base}/comments`, body, { "idempotency-key": "huge" }),
        400,
        "validation-error",
      )) as any;
      assert.equal(problem.errors[0].field, "content");
      assert.equal(await submissions(), before);
      // ASCII at the grapheme limit fits.
      const fits = await alice.commentBody(siteId, page, "a".repeat(10_000));
      assert.equal((await alice.post(`${base}/comments`, fits, { "idempotency-key": "fits" })).status, 202);
    });
  });
}
