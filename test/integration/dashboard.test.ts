// Dashboards on real SQLite and PostgreSQL against the real test Synapse: Matrix users sign in
// with an OpenID token their homeserver vouches for, and read what their roles (the projected
// power levels, checked on every call) let them: me, a site's pages, comments, threads, daily
// counts and its live activity. Refusals: forged tokens, homeservers not allowed, malformed
// input, other sites, operator-only fields, revoked roles, ended sessions, cross-origin cookies.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { createClient } from "graphql-sse";
import { MatrixNames } from "../../src/matrix/names.ts";
import {
  eventually,
  PROVIDERS,
  serviceFor,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { getState, matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import { TEST_OPERATOR_TOKEN, TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments, whenListed } from "../support/reads.ts";
import { expectProblem } from "../support/problems.ts";

const enc = encodeURIComponent;
const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const SESSIONS = "/api/v1/dashboard/sessions";

interface Account {
  userId: string;
  token: string;
}

/** A Matrix OpenID token of the account, as a dashboard asks its homeserver for one. */
const openIdToken = (account: Account) =>
  matrixRequest<{ access_token: string; matrix_server_name: string; expires_in: number }>(
    "POST",
    `/_matrix/client/v3/user/${enc(account.userId)}/openid/request_token`,
    account.token,
    {},
  );

async function gql(
  service: TestService,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; data: any; errors: any[] | undefined }> {
  const res = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  const body = JSON.parse(text) as { data?: any; errors?: any[] };
  return { status: res.status, data: body.data, errors: body.errors };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function ok(answer: Promise<{ data: any; errors: any[] | undefined }>): Promise<any> {
  const { data, errors } = await answer;
  assert.equal(errors, undefined, JSON.stringify(errors));
  return data;
}

/** Refused with `code` and a 4xx `status` in the error's extensions. */
async function refused(answer: Promise<{ errors: any[] | undefined }>, status: number, code: string) {
  const { errors } = await answer;
  assert.ok(errors && errors.length > 0, "refused");
  assert.equal(errors[0].extensions?.code, code, JSON.stringify(errors));
  assert.equal(errors[0].extensions?.status, status, JSON.stringify(errors));
}

const ME = `{ me { kind userId sites { siteId role pages { pageSlug role } } } }`;
const SITE = `query Site($siteId: String!) { dashboardSite(siteId: $siteId) { siteId } }`;
const PAGES = `query Pages($siteId: String!, $first: Int, $after: String, $orderBy: DashboardPageOrder, $search: String) {
  dashboardSite(siteId: $siteId) { pages(first: $first, after: $after, orderBy: $orderBy, search: $search) {
    edges { cursor node { slug commentCount lastActivityAt roomId roomState } } pageInfo { hasNextPage endCursor }
  } }
}`;
const COMMENTS = `query Comments($siteId: String!, $first: Int, $after: String, $pageSlug: String, $author: String,
  $kind: CommentAuthorKind, $status: CommentStatus, $search: String) {
  dashboardSite(siteId: $siteId) {
    comments(first: $first, after: $after, pageSlug: $pageSlug, author: $author, kind: $kind, status: $status, search: $search) {
      edges { cursor node { eventId status content author { type publicKey mxid } } } pageInfo { hasNextPage endCursor }
    }
  }
}`;
const THREAD = `query Thread($siteId: String!, $eventId: String!) {
  dashboardSite(siteId: $siteId) { thread(eventId: $eventId) { comment { eventId } root { eventId } parent { eventId } messages { eventId } } }
}`;
const DAILY = `query Daily($siteId: String!, $days: Int) { dashboardSite(siteId: $siteId) { dailyCounts(days: $days) { date comments authors } } }`;

for (const provider of PROVIDERS) {
  describe(`dashboards (${provider})`, () => {
    const site = uniqueSiteId("dash");
    const otherSite = uniqueSiteId("dash2");
    const sites = { [site]: { origins: [TEST_ORIGIN] }, [otherSite]: { origins: [TEST_ORIGIN] } };
    const ctx = serviceFor(provider, { sites });
    const pageA = `a-${randomBytes(3).toString("hex")}`;
    const pageB = `b-${randomBytes(3).toString("hex")}`;
    let visitor: Visitor;
    let admin: Account;
    let moderator: Account;
    let outsider: Account;
    let space: string;
    let roomA: string;
    const sessions: Record<string, string> = {};
    const comments: Record<string, string> = {};

    const post = async (page: string, text: string, extra: { reply_to?: string; thread_root?: string } = {}) => {
      const res = await visitor.post(
        `/api/v1/sites/${site}/pages/${page}/comments`,
        await visitor.commentBody(site, page, text, extra),
        { "idempotency-key": randomUUID() },
      );
      const listed = await whenListed(
        res,
        async () => (await listComments(ctx.service, site, page, { per_page: 100 })).data,
        `comment "${text}"`,
      );
      return listed.event_id as string;
    };

    /** Sets levels in a room as the AS bot (the rooms' creator), reading the current content first. */
    const setLevels = async (roomId: string, levels: Record<string, number>, token?: string) => {
      const content = await getState(roomId, "m.room.power_levels");
      await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.power_levels/`, token, {
        ...content,
        users: { ...content.users, ...levels },
      });
    };

    const signIn = async (account: Account) => {
      const openId = await openIdToken(account);
      const res = await fetch(`${ctx.service.url}${SESSIONS}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ matrix_server_name: openId.matrix_server_name, access_token: openId.access_token }),
      });
      const text = await res.text();
      assert.equal(res.status, 201, text);
      return { body: JSON.parse(text) as { session_token: string; user_id: string; expires_at: string }, res };
    };

    before(async () => {
      visitor = new Visitor(ctx.service.url, TEST_ORIGIN);
      const suffix = randomBytes(4).toString("hex");
      admin = await registerMatrixUser(`dashadmin${suffix}`);
      moderator = await registerMatrixUser(`dashmod${suffix}`);
      outsider = await registerMatrixUser(`dashout${suffix}`);
      comments.first = await post(pageA, "first on A");
      comments.reply = await post(pageA, "a reply", { reply_to: comments.first, thread_root: comments.first });
      comments.onB = await post(pageB, "on B, with needle");
      space = (await ctx.service.services.sites.store.spaceRoomId(site))!;
      roomA = await resolveAlias(names.alias(names.roomAliasLocalpart(site, pageA)));
      for (const account of [admin, moderator])
        for (const room of [space, roomA])
          await matrixRequest("POST", `/_matrix/client/v3/join/${enc(room)}`, account.token, {});
      await setLevels(space, { [admin.userId]: 100 });
      await setLevels(roomA, { [admin.userId]: 100, [moderator.userId]: 50 });
    });

    test("sign-in with a real Matrix account's OpenID token: a session as bearer and as an HttpOnly cookie", async () => {
      for (const [name, account] of Object.entries({ admin, moderator, outsider })) {
        const { body, res } = await signIn(account);
        assert.equal(body.user_id, account.userId);
        assert.match(body.session_token, /^ds_/);
        assert.ok(new Date(body.expires_at).getTime() > Date.now());
        const cookie = res.headers.get("set-cookie") ?? "";
        assert.match(
          cookie,
          new RegExp(`^dashboard_session=${body.session_token}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Strict$`),
        );
        assert.equal(res.headers.get("cache-control"), "no-store");
        sessions[name] = body.session_token;
      }
    });

    test("an OpenID token opens one session: exchanged again, here or on another instance of the database, it is refused", async () => {
      const openId = await openIdToken(admin);
      const exchange = (service: TestService) =>
        fetch(`${service.url}${SESSIONS}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ matrix_server_name: openId.matrix_server_name, access_token: openId.access_token }),
        });
      const first = await exchange(ctx.service);
      assert.equal(first.status, 201, await first.text());
      const again = await expectProblem(await exchange(ctx.service), 403, "openid-token-invalid");
      assert.match(again.detail, /already exchanged/);
      // Another instance (or this one restarted) shares the database, and so what was exchanged.
      const other = await startTestService({
        databaseUrl: ctx.service.config.database.url,
        sites,
        worker: false,
        overrides: { "server.listen_port": 0 },
      });
      try {
        await expectProblem(await exchange(other), 403, "openid-token-invalid");
        const fresh = await openIdToken(admin);
        const res = await fetch(`${other.url}${SESSIONS}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ matrix_server_name: fresh.matrix_server_name, access_token: fresh.access_token }),
        });
        assert.equal(res.status, 201, await res.text());
      } finally {
        await other.stop();
      }
    });

    test("sign-in refusals: a forged token, a homeserver not allowed, malformed bodies", async () => {
      const signInWith = (body: unknown) =>
        fetch(`${ctx.service.url}${SESSIONS}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      // Synapse answers a token it never issued and an expired one alike (401 M_UNKNOWN_TOKEN); the API never answers 401.
      await expectProblem(
        await signInWith({ matrix_server_name: TEST_SERVER_NAME, access_token: "forgedTOKENforgedTOKEN" }),
        403,
        "openid-token-invalid",
      );
      // The user's Matrix access token is no OpenID token.
      await expectProblem(
        await signInWith({ matrix_server_name: TEST_SERVER_NAME, access_token: admin.token }),
        403,
        "openid-token-invalid",
      );
      const real = await openIdToken(admin);
      await expectProblem(
        await signInWith({ matrix_server_name: "evil.example", access_token: real.access_token }),
        403,
        "homeserver-not-allowed",
      );
      for (const body of [
        {},
        { matrix_server_name: TEST_SERVER_NAME },
        { matrix_server_name: TEST_SERVER_NAME, access_token: "" },
        { matrix_server_name: TEST_SERVER_NAME, access_token: "has spaces in it" },
        { matrix_server_name: TEST_SERVER_NAME, access_token: "x".repeat(5000) },
        { matrix_server_name: "http://127.0.0.1/", access_token: real.access_token },
        { matrix_server_name: TEST_SERVER_NAME, access_token: real.access_token, extra: 1 },
      ])
        await expectProblem(await signInWith(body), 400, "validation-error", JSON.stringify(body).slice(0, 80));
    });

    test("/graphql: no credentials, a forged session, a bearer that is neither: 403", async () => {
      await expectProblem(
        await fetch(`${ctx.service.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: ME }),
        }),
        403,
        "not-signed-in",
      );
      for (const token of [`ds_${"A".repeat(43)}`, "ds_short"])
        await expectProblem(
          await fetch(`${ctx.service.url}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json", ...bearer(token) },
            body: JSON.stringify({ query: ME }),
          }),
          403,
          "invalid-session",
        );
    });

    test("GraphQL dashboardSignIn signs in a caller without credentials, as the REST sign-in; nothing else is theirs", async () => {
      const SIGN_IN = `mutation S($server: String!, $token: String!) {
        dashboardSignIn(matrixServerName: $server, accessToken: $token) { sessionToken userId expiresAt cookie } }`;
      const newcomer = await registerMatrixUser(`dashnew${randomBytes(4).toString("hex")}`);
      const openId = await openIdToken(newcomer);
      const variables = { server: openId.matrix_server_name, token: openId.access_token };
      const session = (await ok(gql(ctx.service, SIGN_IN, variables))).dashboardSignIn;
      assert.equal(session.userId, newcomer.userId);
      assert.match(
        session.cookie,
        new RegExp(`^dashboard_session=${session.sessionToken}; Path=/; Max-Age=\\d+; HttpOnly`),
      );
      assert.equal((await ok(gql(ctx.service, ME, {}, bearer(session.sessionToken)))).me.userId, newcomer.userId);
      // Its token is spent; and a document asking for more than the sign-in is refused before GraphQL runs.
      await refused(gql(ctx.service, SIGN_IN, variables), 403, "openid-token-invalid");
      const more = `mutation S($server: String!, $token: String!) {
        dashboardSignIn(matrixServerName: $server, accessToken: $token) { userId }
        closePage(siteId: "${site}", pageSlug: "${pageA}") }`;
      for (const [path, query] of [
        ["/graphql", more],
        ["/graphql", `query { dashboardSignIn: me { kind } }`],
        ["/graphql", "not graphql"],
        ["/graphql/stream", `subscription { siteActivity(siteId: "${site}") { id } }`],
      ] as const)
        await expectProblem(
          await fetch(`${ctx.service.url}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "text/event-stream" },
            body: JSON.stringify({ query, variables }),
          }),
          403,
          "not-signed-in",
          query,
        );
    });

    test("me: each user's sites and pages with their role, from power levels; the operator governs every site", async () => {
      const me = async (name: string) => (await ok(gql(ctx.service, ME, {}, bearer(sessions[name]!)))).me;
      await eventually(async () => (await me("moderator")).sites.length === 1, 20_000, "the levels projected");
      assert.deepEqual(await me("admin"), {
        kind: "matrix",
        userId: admin.userId,
        sites: [{ siteId: site, role: "admin", pages: [] }],
      });
      assert.deepEqual(await me("moderator"), {
        kind: "matrix",
        userId: moderator.userId,
        sites: [{ siteId: site, role: null, pages: [{ pageSlug: pageA, role: "moderator" }] }],
      });
      assert.deepEqual(await me("outsider"), { kind: "matrix", userId: outsider.userId, sites: [] });
      const operator = (await ok(gql(ctx.service, ME, {}, bearer(TEST_OPERATOR_TOKEN)))).me;
      assert.equal(operator.kind, "operator");
      assert.ok(operator.sites.some((s: any) => s.siteId === site && s.role === "admin"));
    });

    test("a site's dashboard: its governors and the operator read it; others and other sites are refused", async () => {
      for (const name of ["admin", "moderator"])
        assert.deepEqual((await ok(gql(ctx.service, SITE, { siteId: site }, bearer(sessions[name]!)))).dashboardSite, {
          siteId: site,
        });
      await ok(gql(ctx.service, SITE, { siteId: site }, bearer(TEST_OPERATOR_TOKEN)));
      await refused(gql(ctx.service, SITE, { siteId: site }, bearer(sessions.outsider!)), 403, "not-a-governor");
      await refused(gql(ctx.service, SITE, { siteId: otherSite }, bearer(sessions.moderator!)), 403, "not-a-governor");
      await refused(gql(ctx.service, SITE, { siteId: otherSite }, bearer(sessions.admin!)), 403, "not-a-governor");
      await refused(
        gql(ctx.service, SITE, { siteId: "no-such-site" }, bearer(TEST_OPERATOR_TOKEN)),
        404,
        "site-not-found",
      );
      await refused(gql(ctx.service, SITE, { siteId: "NOT A SITE" }, bearer(sessions.admin!)), 400, "validation-error");
    });

    test("a page moderator cannot act on another page (a moderation act through the dashboard)", async () => {
      const del = `mutation D($siteId: String!, $ids: [String!]!) { deleteComments(siteId: $siteId, eventIds: $ids, reason: "test") }`;
      await refused(
        gql(ctx.service, del, { siteId: site, ids: [comments.onB] }, bearer(sessions.moderator!)),
        403,
        "not-a-governor",
      );
    });

    test("sessions reach only the dashboard's root fields: operator and visitor fields are refused", async () => {
      for (const query of [`{ operatorSites { meta { total } } }`, `{ projectionRepairs { meta { total } } }`]) {
        const { errors } = await gql(ctx.service, query, {}, bearer(sessions.admin!));
        assert.equal(errors?.[0]?.extensions?.code, "operator-only", JSON.stringify(errors));
      }
      // The operator still reaches them.
      await ok(gql(ctx.service, `{ operatorSites { meta { total } } }`, {}, bearer(TEST_OPERATOR_TOKEN)));
    });

    test("pages: a keyset connection, sorted and searchable", async () => {
      const read = async (variables: Record<string, unknown>) =>
        (await ok(gql(ctx.service, PAGES, { siteId: site, ...variables }, bearer(sessions.moderator!)))).dashboardSite
          .pages;
      const bySlug = await read({ orderBy: "slug" });
      assert.deepEqual(
        bySlug.edges.map((e: any) => e.node.slug),
        [pageA, pageB].sort(),
      );
      const a = bySlug.edges.find((e: any) => e.node.slug === pageA).node;
      assert.equal(a.commentCount, 2);
      assert.equal(a.roomId, roomA);
      assert.equal(a.roomState, "active");
      assert.ok(a.lastActivityAt);
      const byCount = await read({ orderBy: "commentCount", first: 1 });
      assert.deepEqual(
        byCount.edges.map((e: any) => e.node.slug),
        [pageA],
      );
      assert.equal(byCount.pageInfo.hasNextPage, true);
      const next = await read({ orderBy: "commentCount", first: 1, after: byCount.pageInfo.endCursor });
      assert.deepEqual(
        next.edges.map((e: any) => e.node.slug),
        [pageB],
      );
      assert.equal(next.pageInfo.hasNextPage, false);
      const byActivity = await read({ orderBy: "lastActivity" });
      assert.deepEqual(
        byActivity.edges.map((e: any) => e.node.slug),
        [pageB, pageA],
        "the newest comment is on B",
      );
      assert.deepEqual(
        (await read({ search: pageB.slice(0, 4) })).edges.map((e: any) => e.node.slug),
        [pageB],
      );
      // A cursor of one order is not one of another.
      await refused(
        gql(
          ctx.service,
          PAGES,
          { siteId: site, orderBy: "slug", after: byCount.pageInfo.endCursor },
          bearer(sessions.moderator!),
        ),
        400,
        "invalid-cursor",
      );
    });

    test("comments across the site: newest first, filtered by page, author, kind, status and text, paged by cursor", async () => {
      const read = async (variables: Record<string, unknown>) =>
        (await ok(gql(ctx.service, COMMENTS, { siteId: site, ...variables }, bearer(sessions.admin!)))).dashboardSite
          .comments;
      const ids = (page: any) => page.edges.map((e: any) => e.node.eventId);
      assert.deepEqual(ids(await read({})), [comments.onB, comments.reply, comments.first]);
      assert.deepEqual(ids(await read({ pageSlug: pageA })), [comments.reply, comments.first]);
      assert.deepEqual(ids(await read({ author: visitor.key, kind: "visitor" })), [
        comments.onB,
        comments.reply,
        comments.first,
      ]);
      assert.deepEqual(ids(await read({ kind: "matrix" })), []);
      assert.deepEqual(ids(await read({ search: "needle" })), [comments.onB]);
      const first = await read({ first: 2 });
      assert.deepEqual(ids(first), [comments.onB, comments.reply]);
      assert.equal(first.pageInfo.hasNextPage, true);
      const rest = await read({ first: 2, after: first.pageInfo.endCursor });
      assert.deepEqual(ids(rest), [comments.first]);
      assert.equal(rest.pageInfo.hasNextPage, false);
    });

    test("a comment's thread in context", async () => {
      const thread = (
        await ok(gql(ctx.service, THREAD, { siteId: site, eventId: comments.reply }, bearer(sessions.admin!)))
      ).dashboardSite.thread;
      assert.deepEqual(thread, {
        comment: { eventId: comments.reply },
        root: { eventId: comments.first },
        parent: { eventId: comments.first },
        messages: [{ eventId: comments.first }, { eventId: comments.reply }],
      });
      await refused(
        gql(ctx.service, THREAD, { siteId: site, eventId: "$unknown:localhost" }, bearer(sessions.admin!)),
        404,
        "comment-not-found",
      );
      await refused(
        gql(ctx.service, THREAD, { siteId: site, eventId: "not an event id" }, bearer(sessions.admin!)),
        400,
        "validation-error",
      );
    });

    test("daily counts of the last N days: comments and distinct authors", async () => {
      const days = (await ok(gql(ctx.service, DAILY, { siteId: site, days: 3 }, bearer(sessions.admin!)))).dashboardSite
        .dailyCounts;
      assert.equal(days.length, 3);
      assert.equal(days[2].date, new Date().toISOString().slice(0, 10));
      assert.deepEqual(days[2], { date: days[2].date, comments: 3, authors: 1 });
      assert.deepEqual(
        days.slice(0, 2).map((d: any) => d.comments),
        [0, 0],
      );
    });

    test("probe-style inputs: clear 4xx, never 5xx", async () => {
      const probes: Array<[string, Record<string, unknown>, number, string]> = [
        [COMMENTS, { search: "x".repeat(100_000) }, 400, "validation-error"],
        [PAGES, { search: "%".repeat(10_000) }, 400, "validation-error"],
        [COMMENTS, { after: "not-a-cursor!" }, 400, "invalid-cursor"],
        [COMMENTS, { after: Buffer.from('["comment",1,2]').toString("base64url") }, 400, "invalid-cursor"],
        [COMMENTS, { after: Buffer.from("{}").toString("base64url") }, 400, "invalid-cursor"],
        [COMMENTS, { after: "A".repeat(5000) }, 400, "invalid-cursor"],
        [PAGES, { after: Buffer.from('["comment",1,"$x"]').toString("base64url") }, 400, "invalid-cursor"],
        [COMMENTS, { first: 0 }, 400, "validation-error"],
        [COMMENTS, { first: 1000 }, 400, "validation-error"],
        [COMMENTS, { pageSlug: "../../etc" }, 400, "validation-error"],
        [COMMENTS, { author: "a".repeat(1000) }, 400, "validation-error"],
        [DAILY, { days: 0 }, 400, "validation-error"],
        [DAILY, { days: 100_000 }, 400, "validation-error"],
      ];
      for (const [query, variables, status, code] of probes)
        await refused(gql(ctx.service, query, { siteId: site, ...variables }, bearer(sessions.admin!)), status, code);
      // Wildcards in search texts are literal.
      const literal = (await ok(gql(ctx.service, COMMENTS, { siteId: site, search: "%" }, bearer(sessions.admin!))))
        .dashboardSite.comments;
      assert.deepEqual(literal.edges, []);
    });

    test("the activity subscription delivers new, edited, deleted (a deletion made in Matrix), held and approved comments", async () => {
      const client = createClient({
        url: `${ctx.service.url}/graphql/stream`,
        headers: bearer(sessions.moderator!),
        retryAttempts: 0,
      });
      const received: any[] = [];
      const wake = () => {};
      const dispose = client.subscribe(
        {
          query: `subscription A($siteId: String!) { siteActivity(siteId: $siteId) { id type pageSlug eventId message { eventId status } payload } }`,
          variables: { siteId: site },
        },
        {
          next: (value) => {
            received.push(value);
            wake();
          },
          error: (err) => received.push({ error: err }),
          complete: () => {},
        },
      );
      const seen = (type: string, eventId?: string) =>
        eventually(
          async () =>
            received.find(
              (r) => r.data?.siteActivity.type === type && (!eventId || r.data.siteActivity.eventId === eventId),
            ),
          30_000,
          `activity ${type}`,
        );
      try {
        await new Promise((r) => setTimeout(r, 500));
        const created = await post(pageB, "live one");
        const createdEvent = (await seen("created", created)).data.siteActivity;
        assert.equal(createdEvent.pageSlug, pageB);
        assert.equal(createdEvent.message.eventId, created);
        const edit = await visitor.send(
          "PATCH",
          `/api/v1/sites/${site}/pages/${pageB}/comments/${enc(created)}`,
          {
            content: "live one, edited",
            ...(await visitor.proof((ch) => signatureArrays.editComment(site, pageB, created, "live one, edited", ch))),
          },
          { "idempotency-key": randomUUID() },
        );
        assert.equal(edit.status, 202);
        assert.equal((await seen("edited", created)).data.siteActivity.message.status, "edited");
        // A redaction from a plain Matrix client (the admin's), on page A.
        await matrixRequest(
          "PUT",
          `/_matrix/client/v3/rooms/${enc(roomA)}/redact/${enc(comments.first!)}/${randomUUID()}`,
          admin.token,
          { reason: "off topic" },
        );
        const deleted = (await seen("deleted", comments.first)).data.siteActivity;
        assert.equal(deleted.pageSlug, pageA);
        // A comment held for review on page B (every new comment held there), then approved.
        await ok(
          gql(
            ctx.service,
            `mutation { setModeration(siteId: "${site}", pageSlug: "${pageB}", mode: all) { mode } }`,
            {},
            bearer(sessions.admin!),
          ),
        );
        const heldPost = await visitor.post(
          `/api/v1/sites/${site}/pages/${pageB}/comments`,
          await visitor.commentBody(site, pageB, "held for review"),
          { "idempotency-key": randomUUID() },
        );
        assert.equal(heldPost.status, 202);
        const { submission_id: submissionId } = (await heldPost.json()) as { submission_id: string };
        const heldActivity = (
          await eventually(
            async () =>
              received.find(
                (r) =>
                  r.data?.siteActivity.type === "held" && r.data.siteActivity.payload?.submission_id === submissionId,
              ),
            30_000,
            "activity held",
          )
        ).data.siteActivity;
        assert.equal(heldActivity.pageSlug, pageB);
        const approved = await ok(
          gql(
            ctx.service,
            `mutation { approveHeldComment(siteId: "${site}", submissionId: "${submissionId}") { submissionId status } }`,
            {},
            bearer(sessions.admin!),
          ),
        );
        assert.equal(approved.approveHeldComment.status, "approved");
        await eventually(
          async () =>
            received.find(
              (r) =>
                r.data?.siteActivity.type === "approved" && r.data.siteActivity.payload?.submission_id === submissionId,
            ),
          30_000,
          "activity approved",
        );
        await ok(
          gql(
            ctx.service,
            `mutation { setModeration(siteId: "${site}", pageSlug: "${pageB}") { mode } }`,
            {},
            bearer(sessions.admin!),
          ),
        );
        assert.equal(received.filter((r) => r.error).length, 0);
      } finally {
        dispose();
        client.dispose();
      }
    });

    test("a refused activity subscription says why: its error carries the code and status", async () => {
      const client = createClient({
        url: `${ctx.service.url}/graphql/stream`,
        headers: bearer(sessions.outsider!),
        retryAttempts: 0,
      });
      try {
        const errors = await new Promise<any[]>((resolve, reject) => {
          client.subscribe(
            {
              query: `subscription A($siteId: String!) { siteActivity(siteId: $siteId) { id } }`,
              variables: { siteId: site },
            },
            {
              next: (value) => value.errors && resolve(value.errors as any[]),
              error: reject,
              complete: () => reject(new Error("completed without an error")),
            },
          );
        });
        assert.equal(errors[0].extensions?.code, "not-a-governor", JSON.stringify(errors));
        assert.equal(errors[0].extensions?.status, 403, JSON.stringify(errors));
      } finally {
        client.dispose();
      }
    });

    test("a redaction made in Matrix shows in the dashboard's reads", async () => {
      const redacted = await eventually(
        async () => {
          const page = (
            await ok(gql(ctx.service, COMMENTS, { siteId: site, status: "redacted" }, bearer(sessions.admin!)))
          ).dashboardSite.comments;
          return page.edges.length > 0 && page;
        },
        20_000,
        "the redaction projected",
      );
      assert.deepEqual(
        redacted.edges.map((e: any) => e.node.eventId),
        [comments.first],
      );
      // A page's count is of its standing comments, as the public count has it.
      const counted = await fetch(`${ctx.service.url}/api/v1/sites/${site}/page-counts`, {
        method: "QUERY",
        headers: { "content-type": "application/json", origin: TEST_ORIGIN },
        body: JSON.stringify({ pages: [pageA] }),
      });
      const publicCount = ((await counted.json()) as any).data[0].comment_count;
      const pages = (await ok(gql(ctx.service, PAGES, { siteId: site, search: pageA }, bearer(sessions.admin!))))
        .dashboardSite.pages;
      const all = (
        await ok(gql(ctx.service, COMMENTS, { siteId: site, pageSlug: pageA, first: 100 }, bearer(sessions.admin!)))
      ).dashboardSite.comments.edges;
      assert.equal(pages.edges[0].node.commentCount, publicCount);
      assert.equal(publicCount, all.filter((e: any) => e.node.status !== "redacted").length);
      assert.ok(all.length > publicCount, "the deleted comment is still listed, not counted");
    });

    test("the session cookie: same-origin requests pass, a request without our Origin is refused", async () => {
      const cookie = { cookie: `dashboard_session=${sessions.admin}` };
      const host = new URL(ctx.service.url).host;
      await expectProblem(
        await fetch(`${ctx.service.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", ...cookie },
          body: JSON.stringify({ query: ME }),
        }),
        403,
        "cross-origin-request",
      );
      await expectProblem(
        await fetch(`${ctx.service.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: "https://evil.example", ...cookie },
          body: JSON.stringify({ query: ME }),
        }),
        403,
        "cross-origin-request",
      );
      const res = await fetch(`${ctx.service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `http://${host}`, ...cookie },
        body: JSON.stringify({ query: ME }),
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as any).data.me.userId, admin.userId);
    });

    test("a revoked role loses access on the next call (levels changed from a plain Matrix client)", async () => {
      await ok(gql(ctx.service, SITE, { siteId: site }, bearer(sessions.moderator!)));
      await setLevels(roomA, { [moderator.userId]: 0 }, admin.token);
      await eventually(
        async () => {
          const { errors } = await gql(ctx.service, SITE, { siteId: site }, bearer(sessions.moderator!));
          return errors?.[0]?.extensions?.code === "not-a-governor";
        },
        20_000,
        "the moderator refused",
      );
      assert.deepEqual((await ok(gql(ctx.service, ME, {}, bearer(sessions.moderator!)))).me.sites, []);
    });

    test("the operator's queue: depth, failed submissions with their reasons, retry (sent once)", async () => {
      const QUEUE = `query Q($after: String) { operatorQueue { depth failed(first: 100, after: $after) {
        edges { cursor node { id kind siteId pageSlug attempts reason failedAt } } pageInfo { hasNextPage endCursor } } } }`;
      const RETRY = `mutation R($id: String!) { retrySubmission(id: $id) }`;
      const operator = bearer(TEST_OPERATOR_TOKEN);
      const res = await visitor.post(
        `/api/v1/sites/${site}/pages/${pageB}/comments`,
        await visitor.commentBody(site, pageB, "to fail"),
        { "idempotency-key": randomUUID() },
      );
      const { submission_id: id } = (await res.json()) as { submission_id: string };
      const db = ctx.service.services.db;
      await eventually(
        async () => (await db.submission.findUnique({ where: { id } }))?.status === "sent",
        30_000,
        "sent",
      );
      // As the worker records a permanent failure (after its event may have been stored).
      await db.submission.update({ where: { id }, data: { status: "failed", lastError: "M_FORBIDDEN: refused" } });
      const queue = (await ok(gql(ctx.service, QUEUE, {}, operator))).operatorQueue;
      assert.equal(typeof queue.depth, "number");
      const failed = queue.failed.edges.find((e: any) => e.node.id === id).node;
      assert.deepEqual(
        { ...failed, failedAt: undefined },
        {
          id,
          kind: "comment.post",
          siteId: site,
          pageSlug: pageB,
          attempts: 1,
          reason: "M_FORBIDDEN: refused",
          failedAt: undefined,
        },
      );
      assert.equal(
        (await ok(gql(ctx.service, QUEUE, { after: queue.failed.pageInfo.endCursor }, operator))).operatorQueue.failed
          .edges.length,
        0,
      );
      assert.equal((await ok(gql(ctx.service, RETRY, { id }, operator))).retrySubmission, "queued");
      await eventually(
        async () => (await db.submission.findUnique({ where: { id } }))?.status === "sent",
        30_000,
        "sent again",
      );
      const listed = (await listComments(ctx.service, site, pageB, { per_page: 100 })).data;
      assert.equal(listed.filter((m: any) => m.submission_id === id).length, 1, "sent once");
      await refused(gql(ctx.service, RETRY, { id }, operator), 409, "submission-not-failed");
      await refused(gql(ctx.service, RETRY, { id: "no-such-submission" }, operator), 404, "submission-not-found");
      const { errors } = await gql(ctx.service, QUEUE, {}, bearer(sessions.admin!));
      assert.equal(errors?.[0]?.extensions?.code, "operator-only");
    });

    test("sign-out: the session is refused from then on; an expired session is refused", async () => {
      const signOut = (token: string) =>
        fetch(`${ctx.service.url}/api/v1/dashboard/session`, { method: "DELETE", headers: bearer(token) });
      const res = await signOut(sessions.outsider!);
      assert.equal(res.status, 204, await res.text());
      assert.match(
        res.headers.get("set-cookie") ?? "",
        /^dashboard_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/,
      );
      await expectProblem(
        await fetch(`${ctx.service.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", ...bearer(sessions.outsider!) },
          body: JSON.stringify({ query: ME }),
        }),
        403,
        "invalid-session",
      );
      await expectProblem(await signOut(sessions.outsider!), 403, "invalid-session");
      await expectProblem(
        await fetch(`${ctx.service.url}/api/v1/dashboard/session`, { method: "DELETE" }),
        403,
        "not-signed-in",
      );
      // By cookie, sign-out needs our Origin too.
      await expectProblem(
        await fetch(`${ctx.service.url}/api/v1/dashboard/session`, {
          method: "DELETE",
          headers: { cookie: `dashboard_session=${sessions.admin}`, origin: "https://evil.example" },
        }),
        403,
        "cross-origin-request",
      );
      // Past its expiry a session names no one (the time checked against the stored expiry).
      const sessionsService = ctx.service.services.dashboardSessions;
      assert.equal(await sessionsService.userOf(sessions.admin!), admin.userId);
      assert.equal(await sessionsService.userOf(sessions.admin!, new Date(Date.now() + 3601_000)), null);
    });
  });
}

describe("dashboard sign-in: only allowed homeservers are asked, under the address policy", () => {
  const ctx = serviceFor("sqlite", {
    overrides: { "dashboard.openid_homeservers": ["localhost", "internal.example=http://127.0.0.1:9"] },
  });
  let account: Account;
  before(async () => {
    account = await registerMatrixUser(`dashpol${randomBytes(4).toString("hex")}`);
  });

  test("another configured homeserver on a private address is refused by the address policy", async () => {
    const openId = await openIdToken(account);
    const res = await fetch(`${ctx.service.url}${SESSIONS}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ matrix_server_name: "internal.example", access_token: openId.access_token }),
    });
    const problem = await expectProblem(res, 502, "openid-homeserver-unreachable");
    assert.match(problem.detail, /not a public address \(loopback\)/);
    // The own homeserver, listed by name, is still asked at matrix.homeserver_url.
    const own = await fetch(`${ctx.service.url}${SESSIONS}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ matrix_server_name: TEST_SERVER_NAME, access_token: openId.access_token }),
    });
    assert.equal(own.status, 201, await own.text());
  });
});
