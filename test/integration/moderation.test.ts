// Moderation on real SQLite and PostgreSQL against the real test Synapse: every act is a Matrix
// event (a redaction by the bot naming who asked, bans in the Space and page rooms, pinned
// events, power levels) and shows in reads through the projection, as do acts made in a plain
// Matrix client; banned authors and closed pages are refused before the 202; comments held for
// review stay in the queue until approved (sent once) or rejected (their author sees it).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { MatrixNames } from "../../src/matrix/names.ts";
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
import {
  getEvent,
  getState,
  matrixRequest,
  registerMatrixUser,
  resolveAlias,
  roomMessages,
} from "../support/matrix.ts";
import { TEST_OPERATOR_TOKEN, TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments, whenListed } from "../support/reads.ts";
import { SseClient } from "../support/sse.ts";
import { expectProblem } from "../support/problems.ts";
import { createClient } from "graphql-sse";

const enc = encodeURIComponent;
const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const pageAlias = (site: string, page: string) => names.alias(names.roomAliasLocalpart(site, page));
const newPage = () => `p-${randomBytes(4).toString("hex")}`;

/** A GraphQL operation on /graphql as `token` (the operator's by default): its data, or its errors. */
async function gql(
  service: TestService,
  query: string,
  variables: Record<string, unknown> = {},
  token = TEST_OPERATOR_TOKEN,
): Promise<{ status: number; data: any; errors: any[] | undefined }> {
  const res = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: any; errors?: any[] };
  return { status: res.status, data: body.data, errors: body.errors };
}

/** The data of an operation that must succeed. */
async function ok(answer: Promise<{ data: any; errors: any[] | undefined }>): Promise<any> {
  const { data, errors } = await answer;
  assert.equal(errors, undefined, JSON.stringify(errors));
  return data;
}

/** A page's row in the dashboard's pages: whether it is closed and what is pinned. */
async function pageRow(
  service: TestService,
  site: string,
  page: string,
): Promise<{ closed: boolean; pinned: string[] }> {
  const data = await ok(
    gql(
      service,
      `query P($siteId: String!, $page: String!) { dashboardSite(siteId: $siteId) {
      pages(first: 100, search: $page) { edges { node { slug closed pinned } } } } }`,
      { siteId: site, page },
    ),
  );
  const { slug: _, ...row } = data.dashboardSite.pages.edges.find((e: any) => e.node.slug === page).node;
  return row;
}

/** Asserts the operation was refused with `code` and the HTTP-like `status` (never a 5xx). */
async function refused(answer: Promise<{ data: any; errors: any[] | undefined }>, status: number, code: string) {
  const { errors } = await answer;
  assert.ok(errors && errors.length > 0, "refused");
  assert.equal(errors[0].extensions?.code, code, JSON.stringify(errors));
  assert.equal(errors[0].extensions?.status, status, JSON.stringify(errors));
}

const post = async (visitor: Visitor, site: string, page: string, text: string) =>
  visitor.post(`/api/v1/sites/${site}/pages/${page}/comments`, await visitor.commentBody(site, page, text), {
    "idempotency-key": randomUUID(),
  });

/** Posts and waits until listed; the listed message. */
async function comment(service: TestService, visitor: Visitor, site: string, page: string, text: string) {
  return whenListed(
    await post(visitor, site, page, text),
    async () => (await listComments(service, site, page, { per_page: 100 })).data,
    `comment "${text}"`,
  );
}

/** The visitor's personalized read of a page. */
const personalRead = (service: TestService, visitor: Visitor, site: string, page: string) =>
  listComments(service, site, page, {
    per_page: 100,
    author_public_key: visitor.key,
    author_signature: visitor.sign(["QUERY_COMMENTS", site, page]),
  });

const accepted = async (res: Response): Promise<string> => {
  const text = await res.text();
  assert.equal(res.status, 202, text);
  return (JSON.parse(text) as { submission_id: string }).submission_id;
};

const HELD = `query Held($siteId: String!, $pageSlug: String, $first: Int, $after: String) {
  dashboardSite(siteId: $siteId) {
    held(pageSlug: $pageSlug, first: $first, after: $after) {
      edges { node { submissionId pageSlug status reason authorPublicKey content } }
      pageInfo { endCursor hasNextPage }
    }
  }
}`;
const BANNED = `query Banned($siteId: String!, $first: Int, $after: String) {
  dashboardSite(siteId: $siteId) {
    bannedAuthors(first: $first, after: $after) {
      edges { node { userId publicKey reason bannedBy expiresAt } }
      pageInfo { endCursor hasNextPage }
    }
  }
}`;

/** The nodes of a connection answer. */
const heldNodes = (data: any): any[] => data.dashboardSite.held.edges.map((e: any) => e.node);
const bannedNodes = (data: any): any[] => data.dashboardSite.bannedAuthors.edges.map((e: any) => e.node);
const REVIEW = (approve: boolean) => `mutation Review($siteId: String!, $id: String!) {
  ${approve ? "approveHeldComment" : "rejectHeldComment"}(siteId: $siteId, submissionId: $id) { submissionId status reviewedBy }
}`;
const SET_MODERATION = `mutation Set($siteId: String!, $pageSlug: String, $mode: HoldMode, $words: [String!]) {
  setModeration(siteId: $siteId, pageSlug: $pageSlug, mode: $mode, words: $words) { mode words }
}`;

for (const provider of PROVIDERS) {
  describe(`moderation (${provider})`, () => {
    const site = uniqueSiteId("mod");
    const linksSite = uniqueSiteId("modcfg");
    const ctx = serviceFor(provider, {
      sites: {
        [site]: { origins: [TEST_ORIGIN] },
        [linksSite]: { origins: [TEST_ORIGIN], moderation: "links", moderation_words: ["Casino"] },
      },
    });
    const visitor = () => new Visitor(ctx.service.url, TEST_ORIGIN);

    test("delete with a reason (a bot redaction naming who asked), bulk delete, unknown comments 404", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      const one = await comment(service, author, site, page, "first");
      const two = await comment(service, author, site, page, "second");
      const three = await comment(service, author, site, page, "third");

      const deleted = await ok(
        gql(
          service,
          `mutation D($s: String!, $ids: [String!]!) { deleteComments(siteId: $s, eventIds: $ids, reason: "off topic") }`,
          {
            s: site,
            ids: [one.event_id],
          },
        ),
      );
      assert.deepEqual(deleted.deleteComments, [one.event_id]);
      await eventually(
        async () =>
          (await listComments(service, site, page)).data.find((m) => m.event_id === one.event_id)?.status ===
          "redacted",
        20_000,
        "the tombstone",
      );
      // In Matrix: the bot's redaction, its reason naming who asked.
      const redacted = await getEvent(one.room_id, one.event_id);
      const redaction = redacted.unsigned?.redacted_because;
      assert.equal(redaction.sender, names.botUserId);
      assert.equal(redaction.content.reason, "operator: off topic");

      // Bulk: both, and an already deleted one changes nothing.
      await ok(
        gql(service, `mutation D($s: String!, $ids: [String!]!) { deleteComments(siteId: $s, eventIds: $ids) }`, {
          s: site,
          ids: [two.event_id, three.event_id, one.event_id],
        }),
      );
      await eventually(
        async () => (await listComments(service, site, page)).data.every((m) => m.status === "redacted"),
        20_000,
        "every comment deleted",
      );

      // An unknown comment: 404, and nothing of the batch is deleted.
      const fresh = await comment(service, author, site, page, "fourth");
      await refused(
        gql(service, `mutation D($s: String!, $ids: [String!]!) { deleteComments(siteId: $s, eventIds: $ids) }`, {
          s: site,
          ids: [fresh.event_id, "$unknown:localhost"],
        }),
        404,
        "comment-not-found",
      );
      await refused(
        gql(service, `mutation { pinComment(siteId: "${site}", eventId: "$nope") }`),
        404,
        "comment-not-found",
      );
      await refused(
        gql(service, `mutation { approveHeldComment(siteId: "${site}", submissionId: "nope") { status } }`),
        404,
        "held-comment-not-found",
      );
      assert.equal(
        (await listComments(service, site, page)).data.find((m) => m.event_id === fresh.event_id)?.status,
        "published",
      );
    });

    test("a banned author's next write is refused (403 author-banned); unban lifts it; a timed ban ends by itself", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      const first = await comment(service, author, site, page, "before the ban");
      const ban = await ok(
        gql(
          service,
          `mutation B($s: String!, $k: String!) { banAuthor(siteId: $s, publicKey: $k, reason: "spam") { userId publicKey reason bannedBy expiresAt } }`,
          { s: site, k: author.key },
        ),
      );
      const userId = names.visitorUserId(site, author.publicKey);
      assert.deepEqual(ban.banAuthor, {
        userId,
        publicKey: author.key,
        reason: "spam",
        bannedBy: "operator",
        expiresAt: null,
      });
      await expectProblem(await post(author, site, page, "after the ban"), 403, "author-banned");
      // In Matrix: banned in the page room (and the Space) by the bot, with the reason.
      const member = await getState(first.room_id, "m.room.member", userId);
      assert.equal(member.membership, "ban");
      assert.equal(member.reason, "operator: spam");
      const listed = await ok(gql(service, BANNED, { siteId: site }));
      assert.deepEqual(
        bannedNodes(listed).map((b: any) => b.userId),
        [userId],
      );
      // Another author is not affected.
      await accepted(await post(visitor(), site, page, "someone else"));

      assert.equal(
        (await ok(gql(service, `mutation { unbanAuthor(siteId: "${site}", publicKey: "${author.key}") }`))).unbanAuthor,
        true,
      );
      assert.equal(bannedNodes(await ok(gql(service, BANNED, { siteId: site }))).length, 0);
      assert.equal((await getState(first.room_id, "m.room.member", userId)).membership, "leave");
      await comment(service, author, site, page, "after the unban");

      // A timed ban: refused while it lasts, lifted by the ban expiry pass once it ends.
      await ok(
        gql(
          service,
          `mutation { banAuthor(siteId: "${site}", publicKey: "${author.key}", durationSeconds: 4) { expiresAt } }`,
        ),
      );
      await expectProblem(await post(author, site, page, "during"), 403, "author-banned");
      await new Promise((r) => setTimeout(r, 4100));
      service.services.banExpiryPass.kick();
      await eventually(
        async () => (await getState(first.room_id, "m.room.member", userId)).membership !== "ban",
        20_000,
        "the timed ban lifted in Matrix",
      );
      await eventually(async () => bannedNodes(await ok(gql(service, BANNED, { siteId: site }))).length === 0);
      await comment(service, author, site, page, "after the timed ban");
    });

    test("a ban made in a plain Matrix client shows in the banned list and refuses the author's writes", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      const first = await comment(service, author, site, page, "hello");
      // A Matrix account made moderator of the room by hand (as an admin would in Element).
      const mod = await registerMatrixUser(`mod${randomBytes(4).toString("hex")}`);
      const levels = await getState(first.room_id, "m.room.power_levels");
      await matrixRequest(
        "PUT",
        `/_matrix/client/v3/rooms/${enc(first.room_id)}/state/m.room.power_levels/`,
        undefined,
        {
          ...levels,
          users: { ...levels.users, [mod.userId]: 50 },
        },
      );
      await matrixRequest("POST", `/_matrix/client/v3/rooms/${enc(first.room_id)}/invite`, undefined, {
        user_id: mod.userId,
      });
      await matrixRequest("POST", `/_matrix/client/v3/join/${enc(first.room_id)}`, mod.token, {});
      const userId = names.visitorUserId(site, author.publicKey);
      await matrixRequest("POST", `/_matrix/client/v3/rooms/${enc(first.room_id)}/ban`, mod.token, {
        user_id: userId,
        reason: "by hand",
      });
      const banned = await eventually(
        async () => bannedNodes(await ok(gql(service, BANNED, { siteId: site }))).find((b: any) => b.userId === userId),
        20_000,
        "the Matrix ban in the banned list",
      );
      assert.deepEqual(banned, {
        userId,
        publicKey: author.key,
        reason: "by hand",
        bannedBy: mod.userId,
        expiresAt: null,
      });
      await expectProblem(await post(author, site, page, "again"), 403, "author-banned");
      // Unbanned in Matrix: lifted.
      await matrixRequest("POST", `/_matrix/client/v3/rooms/${enc(first.room_id)}/unban`, mod.token, {
        user_id: userId,
      });
      await eventually(
        async () =>
          !bannedNodes(await ok(gql(service, BANNED, { siteId: site }))).some((b: any) => b.userId === userId),
        20_000,
        "the Matrix unban",
      );
      await accepted(await post(author, site, page, "after the Matrix unban"));
    });

    test("a pinned comment comes first in reads and is announced on SSE; unpin", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      await comment(service, author, site, page, "one");
      const two = await comment(service, author, site, page, "two");
      const stream = await SseClient.open(`${service.url}/api/v1/sites/${site}/pages/${page}/sse`);
      try {
        await eventually(async () => stream.messages.length > 0, 10_000, "the snapshot");
        await ok(gql(service, `mutation { pinComment(siteId: "${site}", eventId: "${two.event_id}") }`));
        assert.deepEqual((await getState(two.room_id, "m.room.pinned_events")).pinned, [two.event_id]);
        const announced = await eventually(
          async () => stream.messages.find((m) => m.data.type === "pins_changed"),
          20_000,
          "pins_changed",
        );
        assert.deepEqual(announced.data.payload, { pinned: [two.event_id] });
        const read = await listComments(service, site, page);
        assert.deepEqual(
          read.pinned.map((m: any) => m.event_id),
          [two.event_id],
        );
        assert.equal(read.pinned[0].content.body, "two");
        assert.equal(read.data.length, 2, "the pinned comment stays in data at its place");
        assert.deepEqual(read.pinned[0], read.data[1], "shown as in data: author, times, reactions");
        assert.deepEqual(await pageRow(service, site, page), { closed: false, pinned: [two.event_id] }, "dashboards");
        // Pins in pin order; a deleted pinned comment is left out of them.
        const three = await comment(service, author, site, page, "three");
        await ok(gql(service, `mutation { pinComment(siteId: "${site}", eventId: "${three.event_id}") }`));
        const pinnedIds = async () => (await listComments(service, site, page)).pinned.map((m: any) => m.event_id);
        await eventually(async () => (await pinnedIds()).length === 2, 20_000, "two pinned");
        assert.deepEqual(await pinnedIds(), [two.event_id, three.event_id]);
        await ok(
          gql(service, `mutation D($s: String!, $ids: [String!]!) { deleteComments(siteId: $s, eventIds: $ids) }`, {
            s: site,
            ids: [three.event_id],
          }),
        );
        await eventually(async () => (await pinnedIds()).length === 1, 20_000, "the deleted pin left out");
        assert.deepEqual(await pinnedIds(), [two.event_id]);
        // Pinning again changes nothing; unpinning empties the list read.
        await ok(gql(service, `mutation { pinComment(siteId: "${site}", eventId: "${two.event_id}") }`));
        await ok(gql(service, `mutation { unpinComment(siteId: "${site}", eventId: "${two.event_id}") }`));
        await eventually(async () => (await pinnedIds()).length === 0, 20_000, "unpinned");
        await eventually(
          // The room's pins as Matrix has them: the deleted comment stays pinned there.
          async () =>
            stream.messages.some(
              (m) => m.data.type === "pins_changed" && !m.data.payload.pinned.includes(two.event_id),
            ),
          20_000,
          "the unpin announced",
        );
      } finally {
        stream.close();
      }
    });

    test("a closed page refuses writes (403 page-closed) and reads say closed; reopen", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      const first = await comment(service, author, site, page, "open");
      assert.equal((await listComments(service, site, page)).closed, false);
      await ok(gql(service, `mutation { closePage(siteId: "${site}", pageSlug: "${page}") }`));
      assert.equal((await getState(first.room_id, "m.room.power_levels")).events_default, 50);
      await eventually(async () => (await listComments(service, site, page)).closed === true, 20_000, "closed");
      assert.equal((await pageRow(service, site, page)).closed, true, "dashboards see it closed");
      await expectProblem(await post(author, site, page, "closed?"), 403, "page-closed");
      await ok(gql(service, `mutation { reopenPage(siteId: "${site}", pageSlug: "${page}") }`));
      await eventually(async () => (await listComments(service, site, page)).closed === false, 20_000, "reopened");
      assert.equal((await pageRow(service, site, page)).closed, false);
      await comment(service, author, site, page, "open again");
      await refused(
        gql(service, `mutation { closePage(siteId: "${site}", pageSlug: "never-commented") }`),
        404,
        "page-not-found",
      );
    });

    test("closing and reopening are in force when they answer: the next write is refused, then accepted and sent", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      await comment(service, author, site, page, "before the first close");
      for (let round = 0; round < 3; round++) {
        const closed = await ok(gql(service, `mutation { closePage(siteId: "${site}", pageSlug: "${page}") }`));
        assert.equal(closed.closePage, true);
        await expectProblem(await post(author, site, page, `closed ${round}`), 403, "page-closed");
        assert.equal((await listComments(service, site, page)).closed, true, "reads say closed at once");
        const reopened = await ok(gql(service, `mutation { reopenPage(siteId: "${site}", pageSlug: "${page}") }`));
        assert.equal(reopened.reopenPage, true, "reopenPage answers true when it succeeds");
        // Accepted at once, and sent: not refused by the homeserver's levels.
        const id = await accepted(await post(author, site, page, `open ${round}`));
        await eventually(
          async () => (await listComments(service, site, page)).data.some((m) => m.submission_id === id),
          30_000,
          `the comment of round ${round}`,
        );
        assert.notEqual((await service.services.db.submission.findUniqueOrThrow({ where: { id } })).status, "failed");
      }
    });

    test("a comment the homeserver refuses after its 202 reaches its author and the site's activity as failed", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      await comment(service, author, site, page, "the room exists");
      const received: any[] = [];
      const client = createClient({
        url: `${service.url}/graphql/stream`,
        headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
        retryAttempts: 0,
      });
      const dispose = client.subscribe(
        {
          query: `subscription A($siteId: String!) { siteActivity(siteId: $siteId) { type pageSlug payload } }`,
          variables: { siteId: site },
        },
        { next: (value) => received.push(value), error: (err) => received.push({ error: err }), complete: () => {} },
      );
      // Accepted while the page is open, sent after it closed (the worker held back meanwhile).
      await service.services.worker.stop();
      let id: string;
      try {
        await new Promise((r) => setTimeout(r, 300));
        id = await accepted(await post(author, site, page, "accepted, then the page closed"));
        await ok(gql(service, `mutation { closePage(siteId: "${site}", pageSlug: "${page}") }`));
      } finally {
        service.services.worker.start();
      }
      try {
        const failed = await eventually(
          async () =>
            (await personalRead(service, author, site, page)).pending.find((p: any) => p.submission_id === id),
          30_000,
          "the failed comment in its author's read",
        );
        assert.equal(failed.status, "failed");
        assert.match(failed.error, /M_FORBIDDEN/);
        assert.equal(failed.content.body, "accepted, then the page closed");
        assert.deepEqual((await listComments(service, site, page)).pending, [], "only its author sees it");
        const activity = await eventually(
          async () =>
            received.find(
              (r) => r.data?.siteActivity.type === "failed" && r.data.siteActivity.payload?.submission_id === id,
            ),
          30_000,
          "the failure in the site's activity",
        );
        assert.equal(activity.data.siteActivity.pageSlug, page);
        assert.match(activity.data.siteActivity.payload.reason, /M_FORBIDDEN/);
      } finally {
        dispose();
        await ok(gql(service, `mutation { reopenPage(siteId: "${site}", pageSlug: "${page}") }`));
      }
    });

    test("approving a held comment on a closed page is refused (409 page-closed) and it stays held; approved once reopened", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      await comment(service, author, site, page, "the room exists");
      await ok(gql(service, SET_MODERATION, { siteId: site, pageSlug: page, mode: "all" }));
      const heldId = await accepted(await post(author, site, page, "held, then the page closed"));
      await ok(gql(service, `mutation { closePage(siteId: "${site}", pageSlug: "${page}") }`));
      await refused(gql(service, REVIEW(true), { siteId: site, id: heldId }), 409, "page-closed");
      assert.equal((await service.services.db.submission.findUniqueOrThrow({ where: { id: heldId } })).status, "held");
      assert.deepEqual(
        (await personalRead(service, author, site, page)).pending.map((p: any) => [p.submission_id, p.status]),
        [[heldId, "held"]],
        "its author still sees it held",
      );
      await ok(gql(service, `mutation { reopenPage(siteId: "${site}", pageSlug: "${page}") }`));
      await ok(gql(service, REVIEW(true), { siteId: site, id: heldId }));
      await eventually(
        async () => (await listComments(service, site, page)).data.some((m) => m.submission_id === heldId),
        30_000,
        "the approved comment",
      );
    });

    test("held comments: all, first-post, words; approve sends once, reject tells the author", async () => {
      const { service } = ctx;
      const page = newPage();
      await ok(gql(service, SET_MODERATION, { siteId: site, pageSlug: page, mode: "all" }));
      const author = visitor();
      const heldId = await accepted(await post(author, site, page, "please review"));
      // Not in Matrix, not in the public read; the author sees it pending, moderators in the held list.
      const mine = await personalRead(service, author, site, page);
      assert.deepEqual(
        mine.pending.map((p: any) => [p.submission_id, p.status, p.content.body]),
        [[heldId, "held", "please review"]],
      );
      assert.deepEqual((await listComments(service, site, page)).pending, []);
      const held = await ok(gql(service, HELD, { siteId: site, pageSlug: page }));
      assert.deepEqual(
        heldNodes(held).map((h: any) => [h.submissionId, h.status, h.reason, h.authorPublicKey]),
        [[heldId, "held", "all", author.key]],
      );
      assert.equal((await service.services.db.submission.findUniqueOrThrow({ where: { id: heldId } })).status, "held");

      // Approved twice (one after the other and at once): sent once.
      const approvals = await Promise.all([
        gql(service, REVIEW(true), { siteId: site, id: heldId }),
        gql(service, REVIEW(true), { siteId: site, id: heldId }),
      ]);
      for (const a of approvals) assert.equal(a.errors, undefined, JSON.stringify(a.errors));
      await ok(gql(service, REVIEW(true), { siteId: site, id: heldId }));
      const listed = await eventually(
        async () => (await listComments(service, site, page)).data.find((m) => m.submission_id === heldId),
        30_000,
        "the approved comment",
      );
      const roomId = await resolveAlias(pageAlias(site, page));
      assert.equal(
        (await roomMessages(roomId)).filter((e) => e.content["service.proof"]?.submission_id === heldId).length,
        1,
        "sent once",
      );
      assert.equal(listed.content.body, "please review");
      assert.deepEqual((await personalRead(service, author, site, page)).pending, []);
      await refused(gql(service, REVIEW(false), { siteId: site, id: heldId }), 409, "already-reviewed");

      // Rejected: never sent; its author reads it rejected.
      const rejectedId = await accepted(await post(author, site, page, "no thanks"));
      assert.equal(
        (await ok(gql(service, REVIEW(false), { siteId: site, id: rejectedId }))).rejectHeldComment.status,
        "rejected",
      );
      assert.deepEqual(
        (await personalRead(service, author, site, page)).pending.map((p: any) => [p.submission_id, p.status]),
        [[rejectedId, "rejected"]],
      );
      assert.equal(heldNodes(await ok(gql(service, HELD, { siteId: site, pageSlug: page }))).length, 0);

      // first-post: an author's first comment on the site is held, the next is not.
      await ok(gql(service, SET_MODERATION, { siteId: site, pageSlug: page, mode: "first_post" }));
      const newcomer = visitor();
      const firstPost = await accepted(await post(newcomer, site, page, "my first"));
      assert.equal(
        (await service.services.db.submission.findUniqueOrThrow({ where: { id: firstPost } })).status,
        "held",
      );
      await ok(gql(service, REVIEW(true), { siteId: site, id: firstPost }));
      await eventually(
        async () => (await listComments(service, site, page)).data.some((m) => m.submission_id === firstPost),
        30_000,
        "the first post",
      );
      await comment(service, newcomer, site, page, "my second, not held");

      // A word list holds whatever the mode; the page's setting removed, the site's applies (off).
      await ok(gql(service, SET_MODERATION, { siteId: site, pageSlug: page, mode: "off", words: ["Forbidden"] }));
      const worded = await accepted(await post(author, site, page, "a forbidden word"));
      const row = await service.services.db.submission.findUniqueOrThrow({ where: { id: worded } });
      assert.deepEqual([row.status, row.heldReason], ["held", "words"]);
      await ok(gql(service, SET_MODERATION, { siteId: site, pageSlug: page }));
      assert.deepEqual(
        (
          await ok(
            gql(service, `{ dashboardSite(siteId: "${site}") { moderation(pageSlug: "${page}") { mode words } } }`),
          )
        ).dashboardSite.moderation,
        {
          mode: "off",
          words: [],
        },
      );
      await comment(service, author, site, page, "forbidden no more");
    });

    test("a page moderator's session: acts on their page (the reason names them), is refused on another page and site-wide", async () => {
      const { service } = ctx;
      const [pageA, pageB] = [newPage(), newPage()];
      const author = visitor();
      const onA = await comment(service, author, site, pageA, "on A");
      const onB = await comment(service, author, site, pageB, "on B");
      const mod = await registerMatrixUser(`pagemod${randomBytes(4).toString("hex")}`);
      await matrixRequest("POST", `/_matrix/client/v3/rooms/${enc(onA.room_id)}/invite`, undefined, {
        user_id: mod.userId,
      });
      await matrixRequest("POST", `/_matrix/client/v3/join/${enc(onA.room_id)}`, mod.token, {});
      const levels = await getState(onA.room_id, "m.room.power_levels");
      await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(onA.room_id)}/state/m.room.power_levels/`, undefined, {
        ...levels,
        users: { ...levels.users, [mod.userId]: 50 },
      });
      const openId = await matrixRequest(
        "POST",
        `/_matrix/client/v3/user/${enc(mod.userId)}/openid/request_token`,
        mod.token,
        {},
      );
      const signedIn = await fetch(`${service.url}/api/v1/dashboard/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ matrix_server_name: openId.matrix_server_name, access_token: openId.access_token }),
      });
      assert.equal(signedIn.status, 201);
      const session = ((await signedIn.json()) as { session_token: string }).session_token;
      // The projection knows the new level once its power levels event is projected.
      await eventually(
        async () => (await gql(service, HELD, { siteId: site, pageSlug: pageA }, session)).errors === undefined,
        20_000,
        "the moderator's role projected",
      );

      // On their page: pin and delete; the bot's redaction names them.
      await ok(gql(service, `mutation { pinComment(siteId: "${site}", eventId: "${onA.event_id}") }`, {}, session));
      await ok(
        gql(
          service,
          `mutation D($s: String!, $ids: [String!]!) { deleteComments(siteId: $s, eventIds: $ids, reason: "rude") }`,
          { s: site, ids: [onA.event_id] },
          session,
        ),
      );
      const redacted = await eventually(
        async () => (await getEvent(onA.room_id, onA.event_id)).unsigned?.redacted_because,
        20_000,
        "the redaction",
      );
      assert.equal(redacted.content.reason, `${mod.userId}: rude`);

      // Another page, and what needs a site role: 403 not-a-governor, and nothing happens.
      for (const act of [
        `mutation { pinComment(siteId: "${site}", eventId: "${onB.event_id}") }`,
        `mutation { deleteComments(siteId: "${site}", eventIds: ["${onB.event_id}"]) }`,
        `mutation { closePage(siteId: "${site}", pageSlug: "${pageB}") }`,
        `mutation { banAuthor(siteId: "${site}", publicKey: "${author.key}") { userId } }`,
        `mutation { setModeration(siteId: "${site}", mode: all) { mode } }`,
      ])
        await refused(gql(service, act, {}, session), 403, "not-a-governor");
      await refused(gql(service, HELD, { siteId: site, pageSlug: pageB }, session), 403, "not-a-governor");
      await refused(gql(service, HELD, { siteId: site }, session), 403, "not-a-governor");
      assert.equal(
        (await listComments(service, site, pageB)).data.find((m) => m.event_id === onB.event_id)?.status,
        "published",
      );
      assert.deepEqual((await listComments(service, site, pageB)).pinned, []);
      assert.equal((await listComments(service, site, pageB)).closed, false);
    });

    test("held comments: the links mode and words from [sites.<id>]; the held connection pages with keyset cursors", async () => {
      const { service } = ctx;
      const page = newPage();
      const author = visitor();
      const link = await accepted(await post(author, linksSite, page, "see https://spam.example/offer"));
      const word = await accepted(await post(author, linksSite, page, "best casino in town"));
      await comment(service, author, linksSite, page, "a plain comment");
      const first = await ok(gql(service, HELD, { siteId: linksSite, first: 1 }));
      assert.deepEqual(
        heldNodes(first).map((h: any) => [h.submissionId, h.reason]),
        [[link, "links"]],
      );
      assert.equal(first.dashboardSite.held.pageInfo.hasNextPage, true);
      const second = await ok(
        gql(service, HELD, { siteId: linksSite, first: 1, after: first.dashboardSite.held.pageInfo.endCursor }),
      );
      assert.deepEqual(
        heldNodes(second).map((h: any) => [h.submissionId, h.reason]),
        [[word, "words"]],
      );
      assert.equal(second.dashboardSite.held.pageInfo.hasNextPage, false);
      // Cursors that are not ours, sizes out of range: 400, never a 5xx.
      for (const after of ["not-a-cursor", Buffer.from("[1]").toString("base64url"), "x".repeat(5000)])
        await refused(gql(service, HELD, { siteId: linksSite, after }), 400, "invalid-cursor");
      await refused(gql(service, HELD, { siteId: linksSite, first: 1000 }), 400, "validation-error");
      await refused(gql(service, BANNED, { siteId: linksSite, after: "zzz" }), 400, "invalid-cursor");
      // A held comment's cursor is not a banned author's.
      await refused(
        gql(service, BANNED, { siteId: linksSite, after: first.dashboardSite.held.pageInfo.endCursor }),
        400,
        "invalid-cursor",
      );
    });
  });
}

for (const provider of PROVIDERS) {
  test(`held comments survive a restart and, with two instances, are approved and sent once (${provider})`, async () => {
    const database = await freshDatabase(provider);
    const site = uniqueSiteId("modheld");
    const sites = { [site]: { origins: [TEST_ORIGIN], moderation: "all" } };
    const page = newPage();
    let first: TestService | null = await startTestService({ databaseUrl: database.url, sites });
    const running: TestService[] = [];
    try {
      const author = new Visitor(first.url, TEST_ORIGIN);
      const held = await accepted(await post(author, site, page, "held across a restart"));
      await first.stop();
      first = null;
      // A restart: the held comment is still held, and the worker (running again) leaves it.
      const again = await startTestService({ databaseUrl: database.url, sites });
      running.push(again);
      const listed = await ok(gql(again, HELD, { siteId: site }));
      assert.deepEqual(
        heldNodes(listed).map((h: any) => [h.submissionId, h.status]),
        [[held, "held"]],
      );
      await again.services.worker.runOnce();
      assert.equal((await again.services.db.submission.findUniqueOrThrow({ where: { id: held } })).status, "held");
      if (provider === "postgres") {
        // A second instance on the same database: both approve at once; one approval wins, both answer it.
        const second = await startTestService({
          databaseUrl: database.url,
          sites,
          overrides: { "server.listen_port": 0 },
        });
        running.push(second);
        const answers = await Promise.all(running.map((s) => gql(s, REVIEW(true), { siteId: site, id: held })));
        for (const a of answers) assert.equal(a.errors, undefined, JSON.stringify(a.errors));
        assert.ok(answers.every((a) => a.data.approveHeldComment.status === "approved"));
      } else await ok(gql(again, REVIEW(true), { siteId: site, id: held }));
      const comment = await eventually(
        async () => (await listComments(again, site, page)).data.find((m) => m.submission_id === held),
        30_000,
        "the approved comment",
      );
      const sent = (await roomMessages(comment.room_id)).filter(
        (e) => e.content["service.proof"]?.submission_id === held,
      );
      assert.equal(sent.length, 1, "sent once");
      assert.equal((await listComments(again, site, page)).data.length, 1);
    } finally {
      await first?.stop();
      for (const s of running) await s.stop();
      await database.drop();
    }
  });
}
