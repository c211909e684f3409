// Observability over a full run: real traffic (site registration, claim and verify tokens, an
// HMAC-signed write, signed visitor comments, the operator API, SSE, cached reads; submissions
// retried while the homeserver is out of reach and one it refuses for good; a pushed event that
// cannot be applied) moves every metric the operations guide names, on both the operator-token
// endpoint and the separate metrics listener; every request gets a JSON log line with its
// request id (echoed in X-Request-Id); and no secret the run used appears anywhere in its logs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer, type Server, type Socket } from "node:net";
import { eventually, startTestService, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { TEST_AS_TOKEN, TEST_HS_TOKEN, TEST_OPERATOR_TOKEN, TEST_SYNAPSE_PORT } from "../support/environment.ts";
import { SseClient } from "../support/sse.ts";
import { Visitor } from "../support/visitor.ts";
import { signRequest } from "../../src/security/request-signature.ts";

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/**
 * The service's way to the test homeserver: a TCP relay the test can cut (connections refused,
 * open ones reset, as when the homeserver is down) and restore, on the same port.
 */
class HomeserverLink {
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;

  private constructor(private readonly port: number) {}

  static async open(): Promise<HomeserverLink> {
    const link = new HomeserverLink(await freePort());
    await link.restore();
    return link;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async restore(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(TEST_SYNAPSE_PORT, "127.0.0.1");
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.server = server;
  }

  cut(): void {
    this.server?.close();
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
  }
}

/** Prometheus text → the sum of each metric's samples (by name, labels summed over). */
/** The samples of one metric by their label set, as the exposition text has them. */
function byLabels(text: string, name: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const match of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})?\\s+(\\S+)$`, "gm")))
    values.set(match[1] ?? "", Number(match[2]));
  return values;
}

function samples(text: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match)
      sums.set(
        match[1]! + (match[1]!.includes("read_cache_requests") ? (match[2] ?? "") : ""),
        (sums.get(match[1]! + (match[1]!.includes("read_cache_requests") ? (match[2] ?? "") : "")) ?? 0) +
          Number(match[3]),
      );
  }
  return sums;
}

test("a full run moves every named metric, logs each request with its id, and logs no secret", async () => {
  const lines: string[] = [];
  // A write may hold several lines (request lines are written in batches).
  const destination = { write: (text: string) => void lines.push(...text.split("\n").filter(Boolean)) };
  const siteId = uniqueSiteId("obs");
  const signedSite = uniqueSiteId("obs-hmac");
  const SITE_SECRET = `hmac-secret-${uniqueSiteId()}`;
  const metricsPort = await freePort();
  const hsLink = await HomeserverLink.open();
  const service = await startTestService({
    sites: { [siteId]: { origins: [TEST_ORIGIN] }, [signedSite]: { origins: [TEST_ORIGIN], secret: SITE_SECRET } },
    overrides: { "metrics.listen_port": metricsPort, "log.level": "info", "matrix.homeserver_url": hsLink.url },
    logDestination: destination,
  });
  const secrets: Record<string, string> = {
    operator: TEST_OPERATOR_TOKEN,
    as_token: TEST_AS_TOKEN,
    hs_token: TEST_HS_TOKEN,
    site_secret: SITE_SECRET,
  };
  let scraped = "";
  const scrape = async () => {
    const res = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` } });
    assert.equal(res.status, 200);
    scraped = await res.text();
    return samples(scraped);
  };
  const streams: SseClient[] = [];
  try {
    assert.equal(
      (await fetch(`${service.url}/metrics`)).status,
      403,
      "the main port's /metrics needs the operator token",
    );
    const separate = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(separate.status, 200);
    assert.match(await separate.text(), /comments_http_requests_total/);
    const before = await scrape();

    // The operator API, a registration (claim token), a claim (verify token).
    const operator = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    assert.equal(operator.status, 200);
    const registeredId = uniqueSiteId("obs-reg");
    const registered = await fetch(`${service.url}/api/v1/sites`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site_id: registeredId }),
    });
    assert.equal(registered.status, 201);
    const requestId = registered.headers.get("x-request-id");
    assert.ok(requestId, "X-Request-Id is echoed");
    // Every kind of response carries a request id, written with its head however that is written.
    const listPath = `/api/v1/sites/${siteId}/pages/p/comments`;
    const kinds: Array<[string, string, RequestInit]> = [
      ["a read", listPath, { method: "QUERY", headers: { "content-type": "application/json" }, body: "{}" }],
      [
        "the same read from the cache",
        listPath,
        { method: "QUERY", headers: { "content-type": "application/json" }, body: "{}" },
      ],
      ["a problem", "/api/v1/nowhere", {}],
      ["a preflight", listPath, { method: "OPTIONS", headers: { origin: TEST_ORIGIN } }],
      ["an asset", "/widget.js", {}],
      ["a probe", "/health/live", {}],
      [
        "GraphQL",
        "/graphql",
        {
          method: "POST",
          headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ query: "{ __typename }" }),
        },
      ],
    ];
    const ids = new Set<string>([requestId]);
    for (const [what, path, init] of kinds) {
      const res = await fetch(`${service.url}${path}`, init);
      await res.arrayBuffer();
      const id = res.headers.get("x-request-id");
      assert.match(id ?? "", /^[\w.:-]{1,64}$/, `${what} (HTTP ${res.status}) carries a request id`);
      assert.ok(!ids.has(id!), `${what}: a request id of its own`);
      ids.add(id!);
    }
    const given = await fetch(`${service.url}/api/v1/nowhere`, { headers: { "x-request-id": "proxy-id.42" } });
    assert.equal(given.headers.get("x-request-id"), "proxy-id.42", "a proxy's plain request id is kept");
    // A request's query is not logged: signed media URLs carry their signatures there.
    secrets.query_signature = "query-s3cret-signature";
    const queried = await fetch(`${service.url}/api/v1/sites/${siteId}/media/x?sig=${secrets.query_signature}`);
    const queriedId = queried.headers.get("x-request-id")!;
    secrets.claim_token = ((await registered.json()) as { claim_token: string }).claim_token;
    const claim = await fetch(`${service.url}/api/v1/sites/${registeredId}/admin-claims`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-claim-token": secrets.claim_token },
      body: JSON.stringify({ user_id: "@someone:localhost" }),
    });
    const claimBody = (await claim.json()) as { verify_token?: string };
    assert.equal(claim.status, 200, JSON.stringify(claimBody));
    secrets.verify_token = claimBody.verify_token!;

    // An SSE stream, and the queue held still while writes come in.
    const stream = await SseClient.open(`${service.url}/api/v1/sites/${siteId}/pages/p/sse`);
    streams.push(stream);
    assert.equal(stream.status, 200);
    await service.services.worker.stop();
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    const submitted: string[] = [];
    for (let i = 0; i < 4; i++) {
      const body = await visitor.commentBody(siteId, "p", `observed ${i}`);
      secrets[`author_signature_${i}`] = body.author_signature;
      const res = await visitor.post(`/api/v1/sites/${siteId}/pages/p/comments`, body, {
        "idempotency-key": `obs-${i}`,
      });
      assert.equal(res.status, 202);
      submitted.push(((await res.json()) as { submission_id: string }).submission_id);
    }
    // An HMAC-signed write from the site's backend.
    const backend = new Visitor(service.url, null);
    const target = `/api/v1/sites/${signedSite}/pages/p/comments`;
    const signedBody = JSON.stringify(await backend.commentBody(signedSite, "p", "signed by the backend"));
    const timestamp = String(Math.floor(Date.now() / 1000));
    secrets.hmac = signRequest(SITE_SECRET, { method: "POST", target, body: Buffer.from(signedBody), timestamp });
    const signed = await backend.post(target, signedBody, {
      "idempotency-key": "obs-signed",
      "x-service-timestamp": timestamp,
      "x-service-signature": secrets.hmac,
    });
    assert.equal(signed.status, 202, await signed.clone().text());
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const held = await scrape();
    assert.ok(held.get("comments_queue_depth")! >= 5, `queue depth ${held.get("comments_queue_depth")}`);
    assert.ok(held.get("comments_queue_oldest_age_seconds")! >= 1, "the oldest queued submission's age");
    assert.equal(held.get("comments_sse_streams"), 1);

    // The homeserver out of reach while the worker starts: its first sends fail and are retried.
    hsLink.cut();
    service.services.worker.start();
    await eventually(
      async () =>
        ((await scrape()).get("comments_submissions_retried_total") ?? 0) >
        (before.get("comments_submissions_retried_total") ?? 0),
      30_000,
      "a retried submission",
    );
    await hsLink.restore();
    await eventually(
      async () =>
        (await service.services.db.submission.count({ where: { id: { in: submitted }, status: "sent" } })) ===
        submitted.length,
      60_000,
      "the submissions to be sent",
    );
    await eventually(
      async () => stream.messages.filter((m) => m.data.type === "message_created").length >= 4,
      30_000,
      "the comments projected and delivered",
    );
    // The homeserver refuses for good: the visitor's virtual user is banned from the page room.
    const room = (await (await fetch(`${service.url}/api/v1/sites/${siteId}/pages/p/room`)).json()) as {
      room_id: string;
    };
    const bannedUserId = service.services.names.visitorUserId(siteId, visitor.publicKey);
    await service.services.homeserver.bot.banUser(bannedUserId, room.room_id, "observability test");
    // The projection records the ban, and the site then refuses the visitor's writes before the
    // 202 (403 author-banned); forget that record so the write reaches the homeserver's refusal.
    await eventually(
      async () =>
        (await service.services.db.siteBan.findUnique({
          where: { siteId_userId: { siteId, userId: bannedUserId } },
        })) !== null,
      30_000,
      "the ban to be projected",
    );
    await service.services.db.siteBan.deleteMany({ where: { siteId, userId: bannedUserId } });
    const refused = await visitor.post(
      `/api/v1/sites/${siteId}/pages/p/comments`,
      await visitor.commentBody(siteId, "p", "from a banned visitor"),
      { "idempotency-key": "obs-banned" },
    );
    assert.equal(refused.status, 202);
    const refusedId = ((await refused.json()) as { submission_id: string }).submission_id;
    await eventually(
      async () => (await service.services.db.submission.findUnique({ where: { id: refusedId } }))?.status === "failed",
      60_000,
      "the refused submission to fail",
    );
    // Cached reads: the same list twice.
    for (let i = 0; i < 3; i++)
      assert.equal(
        (
          await fetch(`${service.url}/api/v1/sites/${siteId}/pages/p/comments`, {
            method: "QUERY",
            headers: { "content-type": "application/json" },
            body: "{}",
          })
        ).status,
        200,
      );
    // A pushed event that cannot be applied (no timestamp) waits for repair.
    const pushed = await fetch(`${service.url}/_matrix/app/v1/transactions/obs-${siteId}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${TEST_HS_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        events: [
          {
            event_id: `$obs-unapplyable-${siteId}`,
            room_id: room.room_id,
            sender: "@someone:localhost",
            type: "m.room.message",
            content: { msgtype: "m.text", body: "x" },
            origin_server_ts: "yesterday",
          },
        ],
      }),
    });
    assert.equal(pushed.status, 200);

    const after = await scrape();
    // The request counter is the duration histogram's count, label set by label.
    const counted = byLabels(scraped, "comments_http_requests_total");
    assert.ok(counted.size > 3, scraped);
    assert.deepEqual(counted, byLabels(scraped, "comments_http_request_duration_seconds_count"));
    const moved = (name: string) =>
      assert.ok(
        (after.get(name) ?? 0) > (before.get(name) ?? 0),
        `${name} did not move (${before.get(name)} → ${after.get(name)})`,
      );
    for (const name of [
      "comments_http_requests_total",
      "comments_http_request_duration_seconds_count",
      "comments_submissions_sent_total",
      "comments_submissions_retried_total",
      "comments_submissions_failed_total",
      "comments_queue_failed",
      "comments_projection_lag_seconds_count",
      "comments_projection_repairs_pending",
      'comments_read_cache_requests_total{result="hit"}',
      'comments_read_cache_requests_total{result="miss"}',
      "comments_read_cache_hit_ratio",
      "comments_homeserver_request_duration_seconds_count",
      "comments_homeserver_request_errors_total",
      "comments_sse_streams",
    ]) {
      moved(name);
    }
    assert.equal(after.get("comments_leader"), 1, "a lone worker instance leads");
    assert.equal(after.get("comments_queue_depth"), 0, "the queue drained");

    // One JSON line per request, with method, route id, status, latency and the request id.
    await eventually(async () => lines.some((line) => line.includes(requestId)), 5_000, "the registration's log line");
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const registration = entries.find((entry) => entry.requestId === requestId)!;
    assert.equal(registration.method, "POST");
    assert.equal(registration.route, "registerSite");
    assert.equal(registration.status, 201);
    assert.equal(typeof registration.latencyMs, "number");
    assert.ok(entries.some((entry) => entry.route === "postComment" && entry.status === 202));
    const queriedEntry = entries.find((entry) => entry.requestId === queriedId);
    assert.equal(queriedEntry?.path, `/api/v1/sites/${siteId}/media/x`, "the path is logged without its query");
  } finally {
    for (const s of streams) s.close();
    await service.stop();
    await hsLink.close();
  }
  // No secret the run used, in any form it was sent, appears in the logs.
  const log = lines.join("");
  assert.ok(lines.length > 10, `the run logged (${lines.length} lines)`);
  for (const [what, secret] of Object.entries(secrets)) {
    assert.ok(secret && secret.length >= 8, `${what} was used`);
    assert.ok(!log.includes(secret), `the logs contain the ${what}`);
  }
});
