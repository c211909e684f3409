// Webhooks on SQLite and PostgreSQL against the real test Synapse and a local receiver: events
// for new, edited and deleted comments, signed per Standard Webhooks (verified with the
// `standardwebhooks` package, an independent implementation), retried after 500s and timeouts
// with the same webhook-id, the delivery log, an endpoint disabled after its retry window; the
// owner's and the operator's routes and every refusal they declare; a service SIGKILLed
// mid-delivery redelivers with the same id; two instances deliver each event once.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { stringify } from "smol-toml";
import { Webhook } from "standardwebhooks";
import {
  eventually,
  freshDatabase,
  PROVIDERS,
  serviceFor,
  startTestService,
  testConfigDocument,
  TEST_ORIGIN,
  uniqueSiteId,
} from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments, whenListed } from "../support/reads.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { expectProblem } from "../support/problems.ts";
import { registerSite } from "../support/sites.ts";
import { WebhookReceiver, type ReceivedWebhook } from "../support/webhook-receiver.ts";
import { TEST_OPERATOR_TOKEN } from "../support/environment.ts";
import { kill, startProcess } from "../support/service-process.ts";
import { call, ok } from "../support/calls.ts";
import { configEndpointId } from "../../src/features/webhooks/webhook-store.ts";

const FAST = {
  "webhooks.allow_private_destinations": true,
  "webhooks.retry_base_ms": 100,
  "webhooks.timeout_ms": 1000,
  "webhooks.poll_interval_ms": 100,
  "webhooks.lease_ms": 2000,
};

const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };

/** One of the two forms of the webhook routes, with its auth (and a wrong credential, with the code refusing it). */
interface Manager {
  who: string;
  base: (siteId: string) => string;
  headers: Record<string, string>;
  forged: { headers: Record<string, string>; code: string };
}

/** The owner's and the operator's forms of the webhook routes: the same operations. */
const managers = (claimToken: string): Manager[] => [
  {
    who: "owner",
    base: (siteId) => `/api/v1/sites/${siteId}/webhooks`,
    headers: { "x-service-claim-token": claimToken },
    forged: { headers: { "x-service-claim-token": "wrong" }, code: "invalid-claim-token" },
  },
  {
    who: "operator",
    base: (siteId) => `/api/v1/operator/sites/${siteId}/webhooks`,
    headers: OPERATOR,
    forged: { headers: { authorization: "Bearer wrong" }, code: "invalid-operator-token" },
  },
];

/** A request to a route: method, path and JSON body. */
type Request = [method: string, path: string, body?: unknown];

/** The requests of every route on one endpoint (under `base`, a site's webhooks). */
const endpointRequests = (base: string, id: string): Request[] => [
  ["GET", `${base}/${id}`],
  ["PATCH", `${base}/${id}`, { enabled: true }],
  ["POST", `${base}/${id}/secret-rotations`],
  ["DELETE", `${base}/${id}`],
  ["GET", `${base}/${id}/deliveries`],
];

/** A request and how it is refused: the problem's status and code, and for a validation error the field it names. */
type Refusal = [request: Request, status: number, code: string, field?: string];

/** The refusal of a request as the problem `status` `code` (naming `field`). */
const refusedAs =
  (status: number, code: string, field?: string) =>
  (request: Request): Refusal => [request, status, code, field];

/** Asserts each request, sent with `headers`, is refused as its problem in full. */
async function expectRefused(service: { url: string }, headers: Record<string, string>, refusals: Refusal[]) {
  for (const [[method, path, body], status, code, field] of refusals) {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const problem = await expectProblem(res, status, code, `${method} ${path}`);
    if (field !== undefined)
      assert.ok(
        problem.errors?.some((e: { field: string }) => e.field === field),
        `${method} ${path}: ${JSON.stringify(problem.errors)} names ${field}`,
      );
  }
}

const verify = (secret: string, request: ReceivedWebhook) =>
  new Webhook(secret).verify(request.body, request.headers) as any;

async function createEndpoint(base: string, siteId: string, claimToken: string, url: string, events?: string[]) {
  const res = await fetch(`${base}/api/v1/sites/${siteId}/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-claim-token": claimToken },
    body: JSON.stringify({ url, ...(events ? { events } : {}) }),
  });
  const body = (await res.json()) as any;
  assert.equal(res.status, 201, JSON.stringify(body));
  return body as { id: string; secret: string };
}

async function post(visitor: Visitor, base: string, siteId: string, page: string, text: string, key: string) {
  const res = await visitor.post(
    `/api/v1/sites/${siteId}/pages/${page}/comments`,
    await visitor.commentBody(siteId, page, text),
    { "idempotency-key": key },
  );
  return whenListed(res, async () => (await listComments({ url: base }, siteId, page)).data);
}

for (const provider of PROVIDERS) {
  describe(`webhooks on ${provider}`, () => {
    // The first attempt of every comment.created answers 500, of every comment.edited hangs past the timeout.
    const receiver = new WebhookReceiver((request, attempt) => {
      const type = JSON.parse(request.body).type;
      if (attempt === 0 && type === "comment.created") return 500;
      if (attempt === 0 && type === "comment.edited") return "hang";
      return 200;
    });
    const failing = new WebhookReceiver(() => 503);
    let url = "";
    let failingUrl = "";
    before(async () => {
      url = await receiver.start();
      failingUrl = await failing.start();
    });
    after(async () => {
      await receiver.stop();
      await failing.stop();
    });
    const declaredSite = uniqueSiteId("declared");
    const declaredUrl = "https://hooks.example/declared";
    const running = serviceFor(provider, {
      overrides: { ...FAST, "webhooks.give_up_after_ms": 3000 },
      sites: {
        [declaredSite]: {
          origins: [TEST_ORIGIN],
          page_url_pattern: "https://declared.example/{page_slug}",
          webhooks: { main: { url: declaredUrl, secret: `whsec_${Buffer.alloc(32, 3).toString("base64")}` } },
        },
      },
    });

    test("signed events for a new, edited and deleted comment; retries with the same id; the log; give-up", async () => {
      const base = running.service.url;
      const { siteId, claimToken } = await registerSite(running.service, uniqueSiteId("hooks"), [TEST_ORIGIN]);
      const settings = await fetch(`${base}/api/v1/sites/${siteId}/settings`, {
        method: "PATCH",
        headers: { "content-type": "application/json", "x-service-claim-token": claimToken },
        body: JSON.stringify({ page_url_pattern: "https://blog.example/{page_slug}/" }),
      });
      assert.equal(settings.status, 200);
      const endpoint = await createEndpoint(base, siteId, claimToken, url);
      assert.match(endpoint.secret, /^whsec_/);
      const doomed = await createEndpoint(base, siteId, claimToken, failingUrl, ["comment.deleted"]);

      const visitor = new Visitor(base, TEST_ORIGIN);
      const comment = await post(visitor, base, siteId, "p", "hello hooks", "h1");
      const created = await eventually(
        async () => receiver.ofType("comment.created").length >= 2 && receiver.ofType("comment.created"),
        20_000,
        "comment.created delivered after a 500",
      );
      assert.equal(created[0]!.headers["webhook-id"], created[1]!.headers["webhook-id"], "a retry keeps the id");
      assert.equal(created[0]!.body, created[1]!.body, "a retry sends the same body");
      const event = verify(endpoint.secret, created[1]!);
      assert.equal(event.type, "comment.created");
      assert.equal(event.data.site_id, siteId);
      assert.equal(event.data.page_slug, "p");
      assert.equal(event.data.comment.event_id, comment.event_id);
      assert.equal(event.data.comment.content.body, "hello hooks");
      assert.equal(event.data.link, `https://blog.example/p/#comment-${encodeURIComponent(comment.event_id)}`);
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(created[1]!.body, created[1]!.headers),
      );

      // An edit: the first attempt times out, the retry is delivered.
      const edit = await visitor.proof((ch) =>
        signatureArrays.editComment(siteId, "p", comment.event_id, "edited text", ch),
      );
      const edited = await visitor.send(
        "PATCH",
        `/api/v1/sites/${siteId}/pages/p/comments/${encodeURIComponent(comment.event_id)}`,
        { content: "edited text", ...edit },
        { "idempotency-key": "h2" },
      );
      assert.equal(edited.status, 202);
      const edits = await eventually(
        async () => receiver.ofType("comment.edited").length >= 2 && receiver.ofType("comment.edited"),
        20_000,
        "comment.edited delivered after a timeout",
      );
      assert.equal(edits[0]!.headers["webhook-id"], edits[1]!.headers["webhook-id"]);
      assert.equal(verify(endpoint.secret, edits[1]!).data.comment.content.body, "edited text");

      // The rotated secret signs what is sent from now on.
      const rotated = await fetch(`${base}/api/v1/sites/${siteId}/webhooks/${endpoint.id}/secret-rotations`, {
        method: "POST",
        headers: { "x-service-claim-token": claimToken },
      });
      const { secret } = (await rotated.json()) as { secret: string };
      assert.notEqual(secret, endpoint.secret);

      const proof = await visitor.proof((ch) => signatureArrays.deleteComment(siteId, "p", comment.event_id, ch));
      const deleted = await visitor.send(
        "DELETE",
        `/api/v1/sites/${siteId}/pages/p/comments/${encodeURIComponent(comment.event_id)}`,
        proof,
        { "idempotency-key": "h3" },
      );
      assert.equal(deleted.status, 202);
      const gone = await eventually(async () => receiver.ofType("comment.deleted")[0], 20_000, "comment.deleted");
      const deletion = verify(secret, gone);
      assert.equal(deletion.data.comment_id, comment.event_id);
      assert.equal(deletion.data.comment.status, "redacted");

      // The log: the created event took two attempts and was delivered.
      const log = (await (
        await fetch(`${base}/api/v1/sites/${siteId}/webhooks/${endpoint.id}/deliveries`, {
          headers: { "x-service-claim-token": claimToken },
        })
      ).json()) as any;
      const createdRow = log.data.find((d: any) => d.event_type === "comment.created");
      assert.equal(createdRow.status, "delivered");
      assert.equal(createdRow.attempts, 2);
      assert.equal(createdRow.last_status, 200);
      assert.equal(typeof createdRow.last_latency_ms, "number");
      assert.equal(createdRow.message_id, created[0]!.headers["webhook-id"]);
      // The operator reads the same log, a page at a time.
      const rows = (body: { data: any[] }) => body.data.map((d) => [d.id, d.event_type, d.message_id]);
      const operatorLog = `/api/v1/operator/sites/${siteId}/webhooks/${endpoint.id}/deliveries`;
      assert.deepEqual(rows(await ok(call(running.service, "GET", operatorLog, OPERATOR))), rows(log));
      const [newest, ...older] = rows(log);
      assert.deepEqual(rows(await ok(call(running.service, "GET", `${operatorLog}?limit=1`, OPERATOR))), [newest]);
      assert.deepEqual(
        rows(await ok(call(running.service, "GET", `${operatorLog}?before=${newest![0]}&limit=100`, OPERATOR))),
        older,
      );

      // The endpoint that only ever answers 503 is disabled once the event is past its retry window.
      const disabled = await eventually(
        async () => {
          const res = await fetch(`${base}/api/v1/operator/sites/${siteId}/webhooks/${doomed.id}`, {
            headers: OPERATOR,
          });
          const body = (await res.json()) as any;
          return body.status === "disabled" && body;
        },
        20_000,
        "the failing endpoint to be disabled",
      );
      assert.match(disabled.disabled_reason, /HTTP 503/);
      // The retry window is 3 s: the reason states the span in seconds, not a rounded "0 min".
      assert.match(disabled.disabled_reason, /failed \d+ times over \d\.\d s; /);
      assert.ok(failing.received.length >= 2, "retried before giving up");
      const metrics = await (await fetch(`${base}/metrics`, { headers: OPERATOR })).text();
      assert.match(metrics, /comments_webhook_deliveries_total\{outcome="failed"\} [1-9]/);
      assert.match(metrics, /comments_webhook_deliveries_total\{outcome="retried"\} [1-9]/);
    });

    test("comment.held: a comment held for review, named by its submission, linked to its page", async () => {
      const base = running.service.url;
      const { siteId, claimToken } = await registerSite(running.service, uniqueSiteId("held"), [TEST_ORIGIN]);
      const settings = await fetch(`${base}/api/v1/sites/${siteId}/settings`, {
        method: "PATCH",
        headers: { "content-type": "application/json", "x-service-claim-token": claimToken },
        body: JSON.stringify({ page_url_pattern: "https://blog.example/{page_slug}/" }),
      });
      assert.equal(settings.status, 200);
      const endpoint = await createEndpoint(base, siteId, claimToken, url, ["comment.held"]);
      const moderation = await fetch(`${base}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", ...OPERATOR },
        body: JSON.stringify({
          query: `mutation { setModeration(siteId: "${siteId}", pageSlug: "q", mode: all) { mode } }`,
        }),
      });
      assert.deepEqual(((await moderation.json()) as any).data, { setModeration: { mode: "all" } });
      const visitor = new Visitor(base, TEST_ORIGIN);
      const res = await visitor.post(
        `/api/v1/sites/${siteId}/pages/q/comments`,
        await visitor.commentBody(siteId, "q", "hold me"),
        { "idempotency-key": "held-1" },
      );
      assert.equal(res.status, 202);
      const { submission_id } = (await res.json()) as { submission_id: string };
      const held = await eventually(
        async () =>
          receiver.ofType("comment.held").find((request) => JSON.parse(request.body).data.comment_id === submission_id),
        20_000,
        "comment.held delivered",
      );
      const event = verify(endpoint.secret, held);
      assert.equal(event.data.site_id, siteId);
      assert.equal(event.data.page_slug, "q");
      assert.equal(event.data.comment, null, "a held comment is shown to nobody");
      assert.equal(event.data.link, "https://blog.example/q/");
    });

    test("events while an endpoint is disabled are skipped in its log, counted, and sent once it is enabled", async () => {
      const { service } = running;
      const { siteId, claimToken } = await registerSite(service, uniqueSiteId("paused"), [TEST_ORIGIN]);
      const paused = new WebhookReceiver();
      const pausedUrl = await paused.start();
      try {
        const headers = { "x-service-claim-token": claimToken };
        const endpoint = await createEndpoint(service.url, siteId, claimToken, pausedUrl, ["comment.created"]);
        const path = `/api/v1/sites/${siteId}/webhooks/${endpoint.id}`;
        assert.equal((await ok(call(service, "PATCH", path, headers, { enabled: false }))).status, "disabled");
        const visitor = new Visitor(service.url, TEST_ORIGIN);
        const comments = [];
        for (let i = 0; i < 2; i++)
          comments.push(await post(visitor, service.url, siteId, "p", `while away ${i}`, `paused-${i}`));
        // Recorded in the transaction that projected each comment: in the log as skipped, and counted.
        const skipped = (await ok(call(service, "GET", `${path}/deliveries`, headers))).data;
        assert.deepEqual(
          skipped.map((d: any) => [d.event_type, d.status, d.attempts, d.last_status, typeof d.completed_at]),
          [
            ["comment.created", "skipped", 0, null, "string"],
            ["comment.created", "skipped", 0, null, "string"],
          ],
        );
        assert.equal((await ok(call(service, "GET", path, headers))).skipped_count, 2);
        const operatorPath = `/api/v1/operator/sites/${siteId}/webhooks/${endpoint.id}`;
        assert.equal((await ok(call(service, "GET", operatorPath, OPERATOR))).skipped_count, 2);
        assert.deepEqual(paused.received, [], "nothing sent while disabled");

        // Enabled again: the skipped events are sent, each once.
        const enabled = await ok(call(service, "PATCH", path, headers, { enabled: true }));
        assert.deepEqual([enabled.status, enabled.skipped_count], ["active", 0]);
        await eventually(async () => paused.received.length >= 2, 20_000, "the skipped events sent");
        const sent = paused.received.map((r) => verify(endpoint.secret, r).data.comment_id).sort();
        assert.deepEqual(sent, comments.map((c) => c.event_id).sort());
        const log = await eventually(async () => {
          const rows = (await ok(call(service, "GET", `${path}/deliveries`, headers))).data;
          return rows.every((d: any) => d.status === "delivered") && rows;
        });
        assert.deepEqual(log.map((d: any) => d.message_id).sort(), skipped.map((d: any) => d.message_id).sort());
      } finally {
        await paused.stop();
      }
    });

    test("the owner's and the operator's routes: an endpoint made, read, changed, switched off and on, rotated, deleted; every refusal", async () => {
      const { service } = running;
      const { siteId, claimToken } = await registerSite(service, uniqueSiteId("routes"));
      const absent = uniqueSiteId("absent");
      for (const { who, base: baseOf, headers, forged } of managers(claimToken)) {
        const base = baseOf(siteId);
        await expectRefused(service, forged.headers, [[["POST", base, { url }], 403, forged.code]]);
        const made = await call(service, "POST", base, headers, { url: `${url}?${who}`, events: ["comment.created"] });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const { secret, ...endpoint } = made.body;
        const { id, created_at, ...fields } = endpoint;
        assert.match(secret, /^whsec_/);
        assert.match(id, /^ep_/);
        assert.ok(Date.parse(created_at) <= Date.now());
        assert.deepEqual(fields, {
          site_id: siteId,
          url: `${url}?${who}`,
          events: ["comment.created"],
          source: "api",
          status: "active",
          skipped_count: 0,
          disabled_reason: null,
          disabled_at: null,
        });
        const path = `${base}/${id}`;
        assert.deepEqual(
          (await ok(call(service, "GET", base, headers))).data.find((e: any) => e.id === id),
          endpoint,
        );
        assert.deepEqual(await ok(call(service, "GET", path, headers)), endpoint);

        const events = ["comment.deleted", "comment.edited"];
        const changed = { ...endpoint, url: `${url}?${who}-changed`, events };
        assert.deepEqual(
          await ok(call(service, "PATCH", path, headers, { url: changed.url, events: [...events, "comment.deleted"] })),
          changed,
          "a changed url and events (each once)",
        );
        const off = await ok(call(service, "PATCH", path, headers, { enabled: false }));
        assert.deepEqual(
          { ...off, disabled_at: null },
          { ...changed, status: "disabled", disabled_reason: "disabled by its owner" },
        );
        assert.ok(Date.parse(off.disabled_at) >= Date.parse(created_at));
        assert.deepEqual(await ok(call(service, "PATCH", path, headers, { enabled: true })), changed);
        const { secret: rotated, ...unchanged } = await ok(call(service, "POST", `${path}/secret-rotations`, headers));
        assert.match(rotated, /^whsec_/);
        assert.notEqual(rotated, secret);
        assert.deepEqual(unchanged, changed);
        assert.deepEqual(await ok(call(service, "GET", `${path}/deliveries`, headers)), { data: [] });

        // Malformed ids, bodies and query parameters; a refused change leaves the endpoint as it was.
        await expectRefused(service, headers, [
          [["GET", baseOf("Not_A_Site")], 400, "validation-error", "site_id"],
          ...endpointRequests(base, "no.dots").map(refusedAs(400, "validation-error", "webhook_id")),
          [["POST", base, { url, events: ["comment.nope"] }], 400, "validation-error", "events.0"],
          [["PATCH", path, { enabled: "yes" }], 400, "validation-error", "enabled"],
          [["PATCH", path, { url: "ftp://example.org/x", enabled: false }], 400, "validation-error", "url"],
          [["GET", `${path}/deliveries?limit=0`], 400, "validation-error", "limit"],
          [["GET", `${path}/deliveries?before=soon`], 400, "validation-error", "before"],
        ]);
        assert.deepEqual(await ok(call(service, "GET", path, headers)), changed);

        assert.deepEqual(await call(service, "DELETE", path, headers), { status: 204, body: null });
        assert.ok(!(await ok(call(service, "GET", base, headers))).data.some((e: any) => e.id === id));
        const elsewhere = baseOf(absent);
        await expectRefused(service, headers, [
          ...endpointRequests(base, id).map(refusedAs(404, "webhook-not-found")),
          ...[
            ["POST", elsewhere, { url }] as Request,
            ["GET", elsewhere] as Request,
            ...endpointRequests(elsewhere, id),
          ].map(refusedAs(404, "site-not-found")),
        ]);
      }

      // At most 10 endpoints a site, however they are made.
      const both = managers(claimToken);
      for (let i = 0; i < 10; i++) {
        const { base, headers } = both[i % 2]!;
        assert.equal((await call(service, "POST", base(siteId), headers, { url })).status, 201);
      }
      for (const { base, headers } of both)
        await expectRefused(service, headers, [[["POST", base(siteId), { url }], 409, "too-many-webhooks"]]);
      assert.equal((await ok(call(service, "GET", both[1]!.base(siteId), OPERATOR))).data.length, 10);

      // A site declared in [sites]: its endpoint and page URL pattern are the configuration's.
      const rotation = `/api/v1/operator/sites/${declaredSite}/claim-token-rotations`;
      const declaredToken: string = (await ok(call(service, "POST", rotation, OPERATOR))).claim_token;
      const declaredId = configEndpointId(declaredSite, "main");
      for (const { base: baseOf, headers } of managers(declaredToken)) {
        const base = baseOf(declaredSite);
        const [declared, ...others] = (await ok(call(service, "GET", base, headers))).data;
        assert.deepEqual(others, []);
        assert.deepEqual(
          [declared.id, declared.source, declared.url, declared.events, declared.status],
          [declaredId, "config", declaredUrl, [], "active"],
        );
        const path = `${base}/${declaredId}`;
        await expectRefused(
          service,
          headers,
          (
            [
              ["PATCH", path, { url }],
              ["PATCH", path, { events: ["comment.held"], enabled: false }],
              ["POST", `${path}/secret-rotations`],
              ["DELETE", path],
            ] as Request[]
          ).map(refusedAs(409, "config-declared")),
        );
        // Switching it off and on is its owner's to do.
        assert.equal((await ok(call(service, "PATCH", path, headers, { enabled: false }))).status, "disabled");
        assert.deepEqual(await ok(call(service, "PATCH", path, headers, { enabled: true })), declared);
      }
      const settings = (site: string) => `/api/v1/sites/${site}/settings`;
      await expectRefused(service, { "x-service-claim-token": declaredToken }, [
        [
          ["PATCH", settings(declaredSite), { page_url_pattern: "https://elsewhere.example/{page_slug}" }],
          409,
          "config-declared",
        ],
      ]);
      await expectRefused(
        service,
        { "x-service-claim-token": claimToken },
        ["https://blog.example/no-slug", "ftp://blog.example/{page_slug}", 7].map((pattern) =>
          refusedAs(
            400,
            "validation-error",
            "page_url_pattern",
          )(["PATCH", settings(siteId), { page_url_pattern: pattern }]),
        ),
      );
    });
  });
}

for (const provider of PROVIDERS) {
  describe(`fair deliveries on ${provider}`, () => {
    const dead = new WebhookReceiver(() => "hang");
    const healthy = new WebhookReceiver();
    let deadUrl = "";
    let healthyUrl = "";
    before(async () => {
      deadUrl = await dead.start();
      healthyUrl = await healthy.start();
    });
    // Stopped before the service, so its hanging attempts end at once and it stops promptly.
    after(async () => {
      await dead.stop();
      await healthy.stop();
    });
    const running = serviceFor(provider, { overrides: { ...FAST, "webhooks.timeout_ms": 30_000 } });

    test("one site's receivers that never answer do not delay another site's deliveries", async () => {
      const base = running.service.url;
      const stalled = await registerSite(running.service, uniqueSiteId("stalled"), [TEST_ORIGIN]);
      for (let i = 0; i < 9; i++) await createEndpoint(base, stalled.siteId, stalled.claimToken, `${deadUrl}?${i}`);
      const fine = await registerSite(running.service, uniqueSiteId("fine"), [TEST_ORIGIN]);
      await createEndpoint(base, fine.siteId, fine.claimToken, healthyUrl);
      const visitor = new Visitor(base, TEST_ORIGIN);
      // 27 deliveries to receivers that never answer, older than any of the other site's.
      for (let i = 0; i < 3; i++) await post(visitor, base, stalled.siteId, "p", `into the void ${i}`, `void-${i}`);
      await eventually(async () => dead.received.length >= 4, 20_000, "the first attempts to the dead receivers");
      for (let i = 0; i < 3; i++) await post(visitor, base, fine.siteId, "p", `heard ${i}`, `heard-${i}`);
      await eventually(async () => healthy.received.length >= 3, 60_000, "the healthy endpoint's deliveries");
      // Each dead attempt waits out its 30 s: none has ended, so none freed a slot the others needed.
      assert.equal(dead.abandoned, 0, "the healthy site's deliveries did not wait for a dead attempt to time out");
      assert.equal(dead.received.length, 4, "a site holds at most 4 attempts at once");
      const endpoints = dead.received.map((r) => r.url);
      assert.equal(new Set(endpoints).size, 4, `the site's endpoints in turn: ${endpoints.join(", ")}`);
    });
  });
}

describe("webhooks without private destinations", () => {
  const running = serviceFor("sqlite", { overrides: { ...FAST, "webhooks.allow_private_destinations": false } });
  test("an IP-literal loopback url is refused at registration, a name resolving to loopback fails its deliveries", async () => {
    const base = running.service.url;
    const { siteId, claimToken } = await registerSite(running.service, uniqueSiteId("ssrf"), [TEST_ORIGIN]);
    for (const url of [
      "http://127.0.0.1:9/x",
      "http://[::1]:9/x",
      "http://169.254.169.254/latest",
      "http://10.1.2.3/x",
      // IANA's special-purpose ranges, and IPv6 forms carrying a refused IPv4 address.
      "http://[2002:7f00:1::]/x",
      "http://[2002:a9fe:a9fe::]/x",
      "http://[::ffff:0:7f00:1]/x",
      "http://198.18.0.1/x",
      "http://192.0.0.1/x",
      "http://192.0.2.1/x",
      "http://[2001:db8::1]/x",
      "http://[2001::1]/x",
    ]) {
      const res = await fetch(`${base}/api/v1/sites/${siteId}/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-claim-token": claimToken },
        body: JSON.stringify({ url }),
      });
      await expectProblem(res, 400, "private-destination", url);
    }
    const endpoint = await createEndpoint(base, siteId, claimToken, "http://localhost:9/hook");
    await post(new Visitor(base, TEST_ORIGIN), base, siteId, "p", "to localhost", "s1");
    const row = await eventually(
      async () => {
        const log = (await (
          await fetch(`${base}/api/v1/sites/${siteId}/webhooks/${endpoint.id}/deliveries`, {
            headers: { "x-service-claim-token": claimToken },
          })
        ).json()) as any;
        return log.data[0]?.last_error && log.data[0];
      },
      20_000,
      "a refused attempt in the log",
    );
    assert.match(row.last_error, /not a public address \(loopback\)/);
    assert.equal(row.last_status, null);
  });
  test("an IP-literal private url is refused to the owner and the operator, at registration and as a change", async () => {
    const { siteId, claimToken } = await registerSite(running.service, uniqueSiteId("ssrf"));
    for (const { base: baseOf, headers } of managers(claimToken)) {
      const base = baseOf(siteId);
      const made = await call(running.service, "POST", base, headers, { url: "https://hooks.example/x" });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const { secret: _, ...endpoint } = made.body;
      const path = `${base}/${endpoint.id}`;
      await expectRefused(running.service, headers, [
        [["POST", base, { url: "http://10.1.2.3/x" }], 400, "private-destination"],
        [["PATCH", path, { url: "http://[::1]:9/x", enabled: false }], 400, "private-destination"],
      ]);
      assert.deepEqual(
        await ok(call(running.service, "GET", path, headers)),
        endpoint,
        "the refused change left it as it was",
      );
    }
  });
});

test("two instances on one PostgreSQL database deliver each event once", async () => {
  const receiver = new WebhookReceiver();
  const url = await receiver.start();
  const database = await freshDatabase("postgres");
  const first = await startTestService({ databaseUrl: database.url, overrides: FAST });
  const second = await startTestService({ databaseUrl: database.url, overrides: { ...FAST, "server.listen_port": 0 } });
  try {
    const { siteId, claimToken } = await registerSite(first, uniqueSiteId("pair"), [TEST_ORIGIN]);
    await createEndpoint(first.url, siteId, claimToken, url, ["comment.created"]);
    const visitor = new Visitor(first.url, TEST_ORIGIN);
    for (let i = 0; i < 4; i++) await post(visitor, first.url, siteId, `p${i % 2}`, `comment ${i}`, `pair-${i}`);
    await eventually(async () => receiver.received.length >= 4, 20_000, "four events");
    // Time for a duplicate to show, were there one: several poll intervals and a lease.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const ids = receiver.received.map((r) => r.headers["webhook-id"]);
    assert.equal(ids.length, 4, `each event once: ${ids.join(", ")}`);
    assert.equal(new Set(ids).size, 4);
  } finally {
    await second.stop();
    await first.stop();
    await database.drop();
    await receiver.stop();
  }
});

test("a service SIGKILLed mid-delivery delivers again after its restart, with the same webhook-id", async () => {
  let hold = true;
  const receiver = new WebhookReceiver(() => (hold ? "hang" : 200));
  const url = await receiver.start();
  const siteId = uniqueSiteId("kill");
  const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
  const work = mkdtempSync(join(tmpdir(), "hooks-kill-"));
  const configFile = join(work, "config.toml");
  const document = testConfigDocument({
    databaseUrl: `file:${join(work, "comments.db")}`,
    sites: { [siteId]: { origins: [TEST_ORIGIN], webhooks: { main: { url, secret } } } },
  });
  writeFileSync(
    configFile,
    stringify({
      ...document,
      webhooks: {
        allow_private_destinations: true,
        retry_base_ms: 100,
        timeout_ms: 30_000,
        poll_interval_ms: 100,
        lease_ms: 1500,
      },
    }),
  );
  let child = await startProcess(configFile);
  const base = `http://${document.server.listen_host}:${document.server.listen_port}`;
  try {
    await post(new Visitor(base, TEST_ORIGIN), base, siteId, "p", "killed mid-delivery", "k1");
    const first = await eventually(async () => receiver.received[0], 20_000, "the first attempt");
    await kill(child, "SIGKILL");
    hold = false;
    child = await startProcess(configFile);
    const again = await eventually(async () => receiver.received[1], 20_000, "the redelivery");
    assert.equal(again.headers["webhook-id"], first.headers["webhook-id"]);
    assert.equal(again.body, first.body);
    assert.equal(verify(secret, again).type, "comment.created");
  } finally {
    await kill(child, "SIGKILL");
    await receiver.stop();
  }
});
