// The HTTP surface over real HTTP and real SQLite: meta routes, site registration, reads,
// and every way a comment write is refused (these never reach Matrix: the worker is off).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { hashClaimToken } from "../../src/features/sites/sites.ts";
import { signRequest } from "../../src/security/request-signature.ts";
import { freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import {
  TEST_APPSERVICE_ID,
  TEST_HS_TOKEN,
  TEST_NAMESPACE_PREFIX,
  TEST_OPERATOR_TOKEN,
  TEST_SERVER_NAME,
} from "../support/environment.ts";
import { matrixRequest } from "../support/matrix.ts";
import { Visitor } from "../support/visitor.ts";
import { expectProblem } from "../support/problems.ts";

const SITE = uniqueSiteId("api");
const STRICT = uniqueSiteId("strict");
const SECRET = "s3cret-for-hmac";

let service: TestService;
let visitor: Visitor;
const url = (path: string) => `${service.url}${path}`;
const commentsPath = (site = SITE, page = "page") => `/api/v1/sites/${site}/pages/${page}/comments`;
const query = (path: string, body?: unknown) =>
  fetch(url(path), {
    method: "QUERY",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const submissionCount = () => service.services.db.submission.count();

before(async () => {
  service = await startTestService({
    worker: false,
    sites: { [SITE]: { origins: [TEST_ORIGIN] }, [STRICT]: { origins: [TEST_ORIGIN], secret: SECRET } },
  });
  visitor = new Visitor(service.url, TEST_ORIGIN);
});
after(() => service?.stop());

describe("meta", () => {
  test("GET /health reports database, homeserver and queue", async () => {
    const res = await fetch(url("/health"));
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.equal(body.status, "ok");
    assert.deepEqual(body.database, { status: "ok", error: null });
    assert.deepEqual(body.homeserver, { status: "ok", error: null });
    assert.equal(body.queue.status, "stopped");
    assert.equal(typeof body.queue.queued, "number");
  });

  test("GET /api/v1/challenge follows the contract", async () => {
    const res = await fetch(url("/api/v1/challenge"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("pragma"), "no-cache");
    const body = (await res.json()) as any;
    assert.match(body.challenge, /^[A-Za-z0-9_-]+$/);
    assert.equal(body.difficulty, 8);
    assert.equal(body.algorithm, "sha256-leading-zero-bits");
    const ttl = Date.parse(body.expires_at) - Date.now();
    assert.ok(ttl > 4.9 * 60_000 && ttl <= 5 * 60_000, `expires in ${ttl} ms`);
  });

  test("the served OpenAPI document is the committed one", async () => {
    const served = await (await fetch(url("/api/v1/openapi.json"))).json();
    assert.deepEqual(
      served,
      JSON.parse(readFileSync(resolve(import.meta.dirname, "../../openapi/openapi.json"), "utf8")),
    );
  });

  test("unknown routes, GET on QUERY routes and malformed JSON are problems", async () => {
    await expectProblem(await fetch(url("/api/v1/nope")), 404, "not-found");
    const get = await fetch(url(commentsPath()));
    await expectProblem(get, 405, "method-not-allowed");
    assert.equal(get.headers.get("accept-query"), "application/json");
    assert.match(get.headers.get("allow") ?? "", /QUERY/);
    const bad = await fetch(url(commentsPath()), {
      method: "QUERY",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    await expectProblem(bad, 400, "validation-error");
  });

  test("CORS preflight lists the methods of the path", async () => {
    const res = await fetch(url(commentsPath()), {
      method: "OPTIONS",
      headers: { origin: TEST_ORIGIN, "access-control-request-method": "QUERY" },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), TEST_ORIGIN);
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /QUERY.*POST|POST.*QUERY/);
    assert.match(res.headers.get("access-control-allow-headers") ?? "", /Idempotency-Key/);
  });

  test("POST /graphql needs the operator token (or a dashboard session) and then answers", async () => {
    const ask = (headers: Record<string, string>) =>
      fetch(url("/graphql"), {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ query: `{ site(id: "${SITE}") { id source verifiedOrigins } }` }),
      });
    const denied = await ask({});
    await expectProblem(denied, 403, "not-signed-in");
    assert.equal(denied.headers.get("www-authenticate"), null);
    await expectProblem(await ask({ authorization: "Bearer wrong" }), 403, "invalid-operator-token");
    const ok = await ask({ authorization: `Bearer ${TEST_OPERATOR_TOKEN}` });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), {
      data: { site: { id: SITE, source: "config", verifiedOrigins: [TEST_ORIGIN] } },
    });
  });
});

describe("optional parts", () => {
  test("without an operator token /graphql takes dashboard sessions only: any other bearer is refused", async () => {
    const plain = await startTestService({
      worker: false,
      overrides: { "server.listen_port": 0, "security.operator_token": "" },
    });
    try {
      await expectProblem(
        await fetch(`${plain.url}/graphql`, { method: "POST", headers: { authorization: "Bearer x" } }),
        403,
        "invalid-operator-token",
      );
    } finally {
      await plain.stop();
    }
  });

  test("GET /health is a 500 problem when the database is unreachable", async () => {
    const database = await freshDatabase("postgres");
    const doomed = await startTestService({
      databaseUrl: database.url,
      worker: false,
      overrides: { "server.listen_port": 0 },
    });
    try {
      assert.equal((await fetch(`${doomed.url}/health`)).status, 200);
      await database.drop();
      await expectProblem(await fetch(`${doomed.url}/health`), 500, "database-unavailable");
    } finally {
      await doomed.stop();
    }
  });
});

describe("site registration", () => {
  test("a chosen id is registered once; the claim token is stored only as a hash", async () => {
    const id = uniqueSiteId("mine");
    const res = await fetch(url("/api/v1/sites"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site_id: id }),
    });
    assert.equal(res.status, 201);
    const body = (await res.json()) as { site_id: string; claim_token: string };
    assert.equal(body.site_id, id);
    assert.ok(body.claim_token.length >= 32);
    const row = await service.services.db.site.findUniqueOrThrow({ where: { id } });
    assert.equal(row.claimTokenHash, hashClaimToken(body.claim_token));
    assert.ok(!JSON.stringify(row).includes(body.claim_token));
    const again = await fetch(url("/api/v1/sites"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site_id: id }),
    });
    await expectProblem(again, 409, "site-id-taken");
  });

  test("no body generates a 32-hex id; config-declared and malformed ids are refused", async () => {
    const res = await fetch(url("/api/v1/sites"), { method: "POST" });
    assert.equal(res.status, 201);
    assert.match(((await res.json()) as any).site_id, /^[0-9a-f]{32}$/);
    await expectProblem(
      await fetch(url("/api/v1/sites"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ site_id: SITE }),
      }),
      409,
      "site-id-taken",
    );
    const bad = await expectProblem(
      await fetch(url("/api/v1/sites"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ site_id: "Bad_Id" }),
      }),
      400,
      "validation-error",
    );
    assert.equal(bad.errors[0].field, "site_id");
  });
});

describe("reading comments", () => {
  test("unregistered site 404, registered site without comments 200 empty", async () => {
    await expectProblem(await query(commentsPath("no-such-site")), 404, "site-not-found");
    const res = await query(commentsPath(SITE, "empty-page"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("accept-query"), "application/json");
    assert.deepEqual(await res.json(), {
      data: [],
      meta: { total: 0, page: 1, per_page: 20, total_pages: 0 },
      pinned: [],
      closed: false,
      pending: [],
    });
  });

  test("personalized reads verify the QUERY_COMMENTS signature", async () => {
    const { signatureArrays } = await import("../../src/contract/signatures.ts");
    const good = {
      author_public_key: visitor.key,
      author_signature: visitor.sign(signatureArrays.queryComments(SITE, "page")),
    };
    assert.equal((await query(commentsPath(), good)).status, 200);
    const otherPage = {
      author_public_key: visitor.key,
      author_signature: visitor.sign(signatureArrays.queryComments(SITE, "other")),
    };
    await expectProblem(await query(commentsPath(), otherPage), 403, "invalid-signature");
    const half = await expectProblem(
      await query(commentsPath(), { author_public_key: visitor.key }),
      400,
      "validation-error",
    );
    assert.deepEqual(
      half.errors.map((e: any) => e.field),
      ["author_signature"],
    );
  });

  test("pagination and path validation", async () => {
    const tooMany = await expectProblem(await query(commentsPath(), { per_page: 101 }), 400, "validation-error");
    assert.equal(tooMany.errors[0].field, "per_page");
    await expectProblem(await query(commentsPath(), { page: 0 }), 400, "validation-error");
    await expectProblem(await query(commentsPath(), { surprise: true }), 400, "validation-error");
    await expectProblem(await query(commentsPath(SITE, "Bad_Slug")), 400, "validation-error");
  });
});

describe("writing comments", () => {
  const post = (body: unknown, headers: Record<string, string> = {}, site = SITE) =>
    visitor.post(commentsPath(site), body, headers);

  test("a valid comment is durably queued before the 202", async () => {
    const res = await post(await visitor.commentBody(SITE, "page", "queued"), { "idempotency-key": "q-1" });
    assert.equal(res.status, 202);
    const { submission_id } = (await res.json()) as any;
    const row = await service.services.db.submission.findUniqueOrThrow({ where: { id: submission_id } });
    assert.equal(row.status, "queued");
    assert.equal(row.authorPublicKey, visitor.key);
  });

  test("Idempotency-Key: required, validated, replayed, and 409 on reuse with another request", async () => {
    const body = await visitor.commentBody(SITE, "page", "idempotent");
    await expectProblem(await post(body), 400, "idempotency-key-required");
    await expectProblem(await post(body, { "idempotency-key": "" }), 400, "invalid-idempotency-key");
    await expectProblem(await post(body, { "idempotency-key": "x".repeat(256) }), 400, "invalid-idempotency-key");
    const before = await submissionCount();
    const first = await post(body, { "idempotency-key": "idem-1" });
    assert.equal(first.status, 202);
    assert.equal(first.headers.get("idempotent-replayed"), null);
    const replay = await post(body, { "idempotency-key": '"idem-1"' });
    assert.equal(replay.status, 202);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(await replay.json(), await first.json());
    const other = await visitor.commentBody(SITE, "page", "something else");
    await expectProblem(await post(other, { "idempotency-key": "idem-1" }), 409, "idempotency-key-reused");
    assert.equal(await submissionCount(), before + 1, "neither the replay nor the conflict queued anything");
  });

  test("a spent challenge is refused with invalid-PoW; invalid requests do not consume the key", async () => {
    const body = await visitor.commentBody(SITE, "page", "once");
    assert.equal((await post(body, { "idempotency-key": "pow-1" })).status, 202);
    await expectProblem(await post(body, { "idempotency-key": "pow-2" }), 403, "invalid-PoW");
    // pow-2 was not consumed by the failure: a valid request may still use it.
    const fresh = await visitor.commentBody(SITE, "page", "once more");
    const ok = await post(fresh, { "idempotency-key": "pow-2" });
    assert.equal(ok.status, 202);
    assert.equal(ok.headers.get("idempotent-replayed"), null);
  });

  test("bad signature (tampered content, another challenge), malformed proof", async () => {
    const body = await visitor.commentBody(SITE, "page", "signed");
    await expectProblem(
      await post({ ...body, content: "tampered" }, { "idempotency-key": "sig-1" }),
      403,
      "invalid-signature",
    );
    const other = await visitor.commentBody(SITE, "page", "signed");
    await expectProblem(
      await post({ ...body, challenge_response: other.challenge_response }, { "idempotency-key": "sig-2" }),
      403,
      "invalid-signature",
    );
    const malformed = await expectProblem(
      await post({ ...body, author_public_key: "short" }, { "idempotency-key": "sig-3" }),
      400,
      "validation-error",
    );
    assert.deepEqual(
      malformed.errors.map((e: any) => e.field),
      ["author_public_key"],
    );
    const missing = await expectProblem(
      await post({ content: "x" }, { "idempotency-key": "sig-4" }),
      400,
      "validation-error",
    );
    assert.deepEqual(missing.errors.map((e: any) => e.field).sort(), [
      "author_public_key",
      "author_signature",
      "challenge_response",
    ]);
  });

  test("an answer without enough work is invalid-PoW", async () => {
    const { challenge } = (await (await fetch(url("/api/v1/challenge"))).json()) as any;
    // Find a nonce whose hash does NOT have the 8 required zero bits, then sign over it.
    const { createHash } = await import("node:crypto");
    let nonce = 0;
    while (createHash("sha256").update(`${challenge}|${nonce}`).digest()[0] === 0) nonce++;
    const { signatureArrays } = await import("../../src/contract/signatures.ts");
    const body = {
      content: "lazy",
      reply_to: null,
      thread_root: null,
      author_public_key: visitor.key,
      author_signature: visitor.sign(signatureArrays.postComment(SITE, "page", "lazy", null, null, challenge)),
      challenge_response: `${challenge}|${nonce}`,
    };
    await expectProblem(await post(body, { "idempotency-key": "lazy" }), 403, "invalid-PoW");
  });

  test("content, display name and relations are validated", async () => {
    await expectProblem(
      await post(await visitor.commentBody(SITE, "page", "   "), { "idempotency-key": "v-1" }),
      400,
      "validation-error",
    );
    await expectProblem(
      await post(await visitor.commentBody(SITE, "page", "x".repeat(10_001)), { "idempotency-key": "v-2" }),
      400,
      "validation-error",
    );
    await expectProblem(
      await post(await visitor.commentBody(SITE, "page", "hi", { display_name: "x".repeat(51) }), {
        "idempotency-key": "v-3",
      }),
      400,
      "validation-error",
    );
    await expectProblem(
      await post(await visitor.commentBody(SITE, "page", "hi", { reply_to: "not-an-event" }), {
        "idempotency-key": "v-4",
      }),
      400,
      "validation-error",
    );
    await expectProblem(
      await post(await visitor.commentBody(SITE, "page", "hi", { reply_to: "$unknown:localhost" }), {
        "idempotency-key": "v-5",
      }),
      404,
      "comment-not-found",
    );
  });

  test("origins: missing or foreign origin is 403", async () => {
    const body = await visitor.commentBody(SITE, "page", "from elsewhere");
    const foreign = new Visitor(service.url, "https://evil.example");
    await expectProblem(
      await foreign.post(commentsPath(), body, { "idempotency-key": "o-1" }),
      403,
      "origin-not-allowed",
    );
    const none = new Visitor(service.url, null);
    await expectProblem(await none.post(commentsPath(), body, { "idempotency-key": "o-2" }), 403, "origin-not-allowed");
  });

  test("sites in secret mode need a valid HMAC request signature", async () => {
    const body = JSON.stringify(await visitor.commentBody(STRICT, "page", "server side"));
    const target = commentsPath(STRICT);
    await expectProblem(await visitor.post(target, body, { "idempotency-key": "h-1" }), 403, "signature-required");
    const timestamp = String(Math.floor(Date.now() / 1000));
    const wrong = signRequest("not-the-secret", { method: "POST", target, body: Buffer.from(body), timestamp });
    await expectProblem(
      await visitor.post(target, body, {
        "idempotency-key": "h-1",
        "x-service-timestamp": timestamp,
        "x-service-signature": wrong,
      }),
      403,
      "invalid-request-signature",
    );
    const stale = String(Number(timestamp) - 301);
    const staleSig = signRequest(SECRET, { method: "POST", target, body: Buffer.from(body), timestamp: stale });
    await expectProblem(
      await visitor.post(target, body, {
        "idempotency-key": "h-1",
        "x-service-timestamp": stale,
        "x-service-signature": staleSig,
      }),
      403,
      "invalid-request-signature",
    );
    const signature = signRequest(SECRET, { method: "POST", target, body: Buffer.from(body), timestamp });
    const ok = await visitor.post(target, body, {
      "idempotency-key": "h-1",
      "x-service-timestamp": timestamp,
      "x-service-signature": signature,
    });
    assert.equal(ok.status, 202);
  });

  test("a retiring site refuses writes with 410 but still serves reads", async () => {
    const id = uniqueSiteId("retiring");
    await service.services.db.site.create({
      data: { id, source: "api", status: "retiring", origins: { create: { origin: TEST_ORIGIN, source: "verified" } } },
    });
    await expectProblem(
      await post(await visitor.commentBody(id, "page", "too late"), { "idempotency-key": "late" }, id),
      410,
      "site-retired",
    );
    assert.equal((await query(commentsPath(id))).status, 200);
  });

  test("unregistered and unverified sites never accept writes nor provision a Space", async () => {
    const ghost = uniqueSiteId("ghost");
    await expectProblem(
      await post(await visitor.commentBody(ghost, "page", "hi"), { "idempotency-key": "g-1" }, ghost),
      404,
      "site-not-found",
    );
    const reg = await fetch(url("/api/v1/sites"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site_id: uniqueSiteId("unverified") }),
    });
    const { site_id } = (await reg.json()) as any;
    await expectProblem(
      await post(await visitor.commentBody(site_id, "page", "hi"), { "idempotency-key": "g-2" }, site_id),
      403,
      "site-not-verified",
    );
    for (const id of [ghost, site_id]) {
      await assert.rejects(
        matrixRequest(
          "GET",
          `/_matrix/client/v3/directory/room/${encodeURIComponent(`#${TEST_NAMESPACE_PREFIX}${id}:${TEST_SERVER_NAME}`)}`,
        ),
        (err: any) => err.status === 404,
      );
    }
  });
});

describe("rate limits", () => {
  test("comment writes over budget get 429 with a constant Retry-After", async () => {
    const limited = await startTestService({
      worker: false,
      sites: { [SITE]: { origins: [TEST_ORIGIN] } },
      overrides: { "server.listen_port": 0, "rate_limit.comment_write": 2 },
    });
    try {
      const v = new Visitor(limited.url, TEST_ORIGIN);
      for (const key of ["r-1", "r-2"])
        assert.equal(
          (await v.post(commentsPath(), await v.commentBody(SITE, "page", key), { "idempotency-key": key })).status,
          202,
        );
      const res = await v.post(commentsPath(), await v.commentBody(SITE, "page", "r-3"), { "idempotency-key": "r-3" });
      await expectProblem(res, 429, "rate-limited");
      assert.equal(res.headers.get("retry-after"), "3600");
    } finally {
      await limited.stop();
    }
  });
});

describe("live events", () => {
  test("an event stream of a malformed page or an unknown site is refused before it starts", async () => {
    const bad = await fetch(url(`/api/v1/sites/${SITE}/pages/Not_A_Slug/sse`));
    await expectProblem(bad, 400, "validation-error");
    await expectProblem(
      await fetch(url(`/api/v1/sites/${uniqueSiteId("nowhere")}/pages/page/sse`)),
      404,
      "site-not-found",
    );
  });
});

describe("appservice endpoint and dashboard subscriptions", () => {
  const txn = (id: string, events: unknown[], token = TEST_HS_TOKEN) =>
    fetch(url(`/_matrix/app/v1/transactions/${id}`), {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ events }),
    });

  test("the homeserver's appservice ping reaches the service (MSC2659)", async () => {
    const answer = await matrixRequest("POST", `/_matrix/client/v1/appservice/${TEST_APPSERVICE_ID}/ping`, undefined, {
      transaction_id: "ping-1",
    });
    assert.equal(typeof answer.duration_ms, "number");
  });

  test("transactions need the homeserver token, reject bad JSON, and apply once", async () => {
    const denied = await txn("t-denied", [], "wrong");
    assert.equal(denied.status, 403);
    assert.equal(((await denied.json()) as any).errcode, "M_FORBIDDEN");
    const bad = await fetch(url("/_matrix/app/v1/transactions/t-bad"), {
      method: "PUT",
      headers: { authorization: `Bearer ${TEST_HS_TOKEN}` },
      body: "{",
    });
    assert.equal(bad.status, 400);

    await service.services.db.room.create({
      data: { roomId: "!native:localhost", siteId: SITE, pageSlug: "native", roomVersion: "12" },
    });
    const event = {
      event_id: "$native1",
      room_id: "!native:localhost",
      sender: "@bob:localhost",
      type: "m.room.message",
      origin_server_ts: 1_795_000_000_000,
      content: { msgtype: "m.text", body: "hi", format: "org.matrix.custom.html", formatted_body: "<b>hi</b>" },
    };
    const member = {
      event_id: "$m1",
      room_id: "!native:localhost",
      sender: "@bob:localhost",
      state_key: "@bob:localhost",
      type: "m.room.member",
      origin_server_ts: 1_794_999_999_000,
      content: { membership: "join", displayname: "Bob" },
    };
    assert.equal((await txn("t-1", [member, event])).status, 200);
    assert.equal((await txn("t-1", [member, event])).status, 200, "a retried transaction is acknowledged");
    assert.equal((await txn("t-2", [event])).status, 200, "the same event in another transaction is not duplicated");
    const listed = (await (await query(commentsPath(SITE, "native"))).json()) as any;
    assert.equal(listed.data.length, 1);
    assert.deepEqual(listed.data[0].content, {
      type: "text",
      body: "hi",
      format: "org.matrix.custom.html",
      formatted_body: "<b>hi</b>",
    });
    assert.deepEqual(listed.data[0].author, {
      type: "matrix",
      mxid: "@bob:localhost",
      display_name: "Bob",
      avatar_url: null,
    });
    assert.equal(listed.data[0].created_at, new Date(1_795_000_000_000).toISOString());
  });

  test("GraphQL subscriptions over graphql-sse deliver a page's events to dashboards", async () => {
    const { createClient } = await import("graphql-sse");
    const client = createClient({
      url: url("/graphql/stream"),
      headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
      retryAttempts: 0,
    });
    const received: any[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const dispose = client.subscribe(
        {
          query: `subscription { pageEvents(siteId: "${SITE}", pageSlug: "native") { type message { eventId content } payload } }`,
        },
        {
          next: (value) => {
            received.push(value);
            if ((value.data as any)?.pageEvents.type !== "message_created") return;
            dispose();
            resolve();
          },
          error: reject,
          complete: () => resolve(),
        },
      );
    });
    await new Promise((r) => setTimeout(r, 300));
    const event = {
      event_id: "$native2",
      room_id: "!native:localhost",
      sender: "@bob:localhost",
      type: "m.room.message",
      origin_server_ts: 1_795_000_001_000,
      content: { msgtype: "m.text", body: "live" },
    };
    assert.equal((await txn("t-3", [event])).status, 200);
    await done;
    client.dispose();
    assert.deepEqual(received[0].data.pageEvents, {
      type: "ephemeral",
      message: null,
      payload: { kind: "typing", users: [] },
    });
    assert.deepEqual(received[1].data.pageEvents, {
      type: "message_created",
      message: { eventId: "$native2", content: { type: "text", body: "live", format: null, formatted_body: null } },
      payload: null,
    });
  });
});
