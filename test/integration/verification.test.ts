// Origin verification over real HTTP: origin servers and a DNS server run by the test on
// loopback (the service asks the DNS server through security.dns_resolver). First with private
// origins allowed (so the loopback servers count as origins): both well-known shapes, DNS TXT,
// method order and fallback, the attempt budget, redirects, size, type and time limits. Then
// with them refused: private IP literals, names resolving to private addresses, and a
// rebinding resolver, while the loopback servers must see no connection at all.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { buildConfig, ConfigError } from "../../src/config/config.ts";
import { refusedAddress } from "../../src/security/address-policy.ts";
import { HostResolver } from "../../src/security/resolver.ts";
import { checkWellKnown } from "../../src/features/verification/well-known.ts";
import { startTestService, testConfigDocument, uniqueSiteId, type TestService } from "../support/harness.ts";
import { TestDns, type RecordType } from "../support/dns-server.ts";
import { expectProblem } from "../support/problems.ts";
import { registerSite } from "../support/sites.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An HTTP server standing in for a site's origin; it logs every connection and request. */
class OriginServer {
  connections = 0;
  readonly requests: { host: string | undefined; path: string }[] = [];
  private handler: Handler = notFound;

  private constructor(private readonly server: Server) {
    server.on("connection", () => this.connections++);
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      this.requests.push({ host: req.headers.host, path: req.url ?? "" });
      this.handler(req, res);
    });
  }

  static async start(host = "127.0.0.1"): Promise<OriginServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return new OriginServer(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${address}:${port}`;
  }

  serve(handler: Handler): void {
    this.handler = handler;
  }

  /** Serves `document` as JSON at the well-known path (404 elsewhere). */
  serveJson(document: unknown): void {
    this.serve((req, res) => (req.url === "/.well-known/service.json" ? json(res, document) : notFound(req, res)));
  }

  forget(): void {
    this.connections = 0;
    this.requests.length = 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function json(res: ServerResponse, document: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(document));
}

function notFound(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(404, { "content-type": "text/plain" });
  res.end("not found");
}

/** The test's DNS zone: per name and type, the answer (a function may answer differently each time). */
const zone = new Map<string, Partial<Record<RecordType, string[] | (() => string[])>>>();
const testName = (label: string) => `${label}-${randomBytes(4).toString("hex")}.test`;

let dns: TestDns;
let originServer: OriginServer;
let service: TestService;

const url = (path: string) => `${service.url}${path}`;

function startRequest(site: { siteId: string; claimToken: string }, body: unknown): Promise<Response> {
  return fetch(url(`/api/v1/sites/${site.siteId}/verifications`), {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-claim-token": site.claimToken },
    body: JSON.stringify(body),
  });
}

interface Started {
  origin: string;
  token: string;
  expires_at: string;
  methods: string[];
  instructions: Record<string, any>;
}

async function start(
  site: { siteId: string; claimToken: string },
  body: { origin: string; methods?: string[] },
): Promise<Started> {
  const res = await startRequest(site, body);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Started;
}

function confirm(siteId: string, origin: string): Promise<Response> {
  return fetch(url(`/api/v1/sites/${siteId}/verifications/confirm`), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ origin }),
  });
}

async function expectVerified(siteId: string, origin: string): Promise<void> {
  const res = await confirm(siteId, origin);
  const body = (await res.json()) as { site_id: string; verified_origins: string[] };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.site_id, siteId);
  assert.ok(body.verified_origins.includes(origin), JSON.stringify(body));
  const row = await service.services.db.siteOrigin.findUnique({ where: { siteId_origin: { siteId, origin } } });
  assert.equal(row?.source, "verified");
  assert.equal(
    await service.services.db.siteVerification.count({ where: { siteId, origin } }),
    0,
    "the pending verification is gone",
  );
}

function startService(allowPrivate: boolean): Promise<TestService> {
  return startTestService({
    worker: false,
    overrides: {
      "security.allow_private_verification_origins": allowPrivate,
      "security.dns_resolver": dns.server,
      "rate_limit.verification_start": 10_000,
      "rate_limit.verification_confirm": 10_000,
      "rate_limit.claim_token": 10_000,
    },
  });
}

before(async () => {
  dns = await TestDns.start((name, type) => {
    const records = zone.get(name);
    if (!records) return null;
    const answer = records[type] ?? [];
    return typeof answer === "function" ? answer() : answer;
  });
  originServer = await OriginServer.start();
});
after(async () => {
  await originServer?.close();
  await dns?.close();
});

describe("with private origins allowed", () => {
  before(async () => {
    service = await startService(true);
  });
  after(() => service?.stop());

  test("start answers the token, its expiry, the methods and what to publish where", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const before = Date.now();
    const byIp = await start(site, { origin: `${originServer.origin}/` });
    assert.equal(byIp.origin, originServer.origin);
    assert.match(byIp.token, /^[A-Za-z0-9_-]{43}$/);
    const lifetime = Date.parse(byIp.expires_at) - before;
    assert.ok(lifetime > 23.9 * 3600_000 && lifetime <= 24 * 3600_000 + 60_000, `expires_at ${byIp.expires_at}`);
    // An IP-address origin has no DNS name for a TXT record.
    assert.deepEqual(byIp.methods, ["well-known"]);
    assert.deepEqual(Object.keys(byIp.instructions), ["well-known"]);
    const wellKnown = byIp.instructions["well-known"];
    assert.equal(wellKnown.url, `${originServer.origin}/.well-known/service.json`);
    assert.equal(wellKnown.content_type, "application/json");
    assert.deepEqual(wellKnown.documents, [
      { site_id: site.siteId, token: byIp.token },
      { sites: { [site.siteId]: byIp.token } },
    ]);

    const byName = await start(site, { origin: "HTTPS://Blog.Example:443" });
    assert.equal(byName.origin, "https://blog.example");
    assert.deepEqual(byName.methods, ["well-known", "dns-txt"]);
    assert.deepEqual(byName.instructions["dns-txt"], {
      name: "_service.blog.example",
      type: "TXT",
      value: `service-verification=${byName.token}`,
      description: byName.instructions["dns-txt"].description,
    });
    assert.equal(byName.instructions["well-known"].url, "https://blog.example/.well-known/service.json");

    const chosen = await start(site, { origin: "http://blog.example:8080", methods: ["dns-txt"] });
    assert.equal(chosen.origin, "http://blog.example:8080");
    assert.deepEqual(chosen.methods, ["dns-txt"]);
    assert.deepEqual(Object.keys(chosen.instructions), ["dns-txt"]);
  });

  test("start refuses what is not an http(s) origin, unknown methods, and a wrong claim token", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    for (const origin of [
      "https://blog.example/path",
      "ftp://blog.example",
      "https://user@blog.example",
      "https://blog.example?x=1",
      "blog.example",
      "",
    ]) {
      await expectProblem(await startRequest(site, { origin }), 400, "validation-error");
    }
    for (const methods of [[], ["well-known", "well-known"], ["smtp"], "well-known"]) {
      await expectProblem(
        await startRequest(site, { origin: "https://blog.example", methods }),
        400,
        "validation-error",
      );
    }
    await expectProblem(
      await startRequest(site, { origin: originServer.origin, methods: ["dns-txt"] }),
      400,
      "validation-error",
    );
    await expectProblem(
      await startRequest(site, { origin: "https://blog.example", extra: 1 }),
      400,
      "validation-error",
    );
    await expectProblem(await startRequest(site, {}), 400, "validation-error");
    await expectProblem(
      await startRequest({ ...site, claimToken: "not-the-claim-token" }, { origin: "https://blog.example" }),
      403,
      "invalid-claim-token",
    );
  });

  test("the {site_id, token} document verifies the origin; a second confirm finds nothing pending", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const { token } = await start(site, { origin: originServer.origin });
    originServer.serveJson({ site_id: site.siteId, token });
    originServer.forget();
    await expectVerified(site.siteId, originServer.origin);
    assert.deepEqual(
      originServer.requests.map((r) => r.path),
      ["/.well-known/service.json"],
    );
    assert.equal(originServer.requests[0]!.host, originServer.origin.replace("http://", ""));
    await expectProblem(await confirm(site.siteId, originServer.origin), 404, "verification-not-found");
  });

  test("the {sites: {…}} document verifies every site it lists", async () => {
    const first = await registerSite(service, uniqueSiteId("verify"));
    const second = await registerSite(service, uniqueSiteId("verify"));
    const a = await start(first, { origin: originServer.origin });
    const b = await start(second, { origin: originServer.origin });
    originServer.serveJson({ sites: { "some-other-site": "x", [first.siteId]: a.token, [second.siteId]: b.token } });
    await expectVerified(first.siteId, originServer.origin);
    await expectVerified(second.siteId, originServer.origin);
  });

  test("a document without the site's token, or with another one, is no proof", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const { token } = await start(site, { origin: originServer.origin });
    const cases: [unknown, RegExp][] = [
      [{ site_id: site.siteId, token: "not-it" }, /different token/],
      [{ sites: { [site.siteId]: `${token}x` } }, /different token/],
      [{ site_id: "other", token }, /names no token/],
      [{ sites: {} }, /names no token/],
      [[site.siteId, token], /not a JSON object/],
    ];
    for (const [document, reason] of cases) {
      originServer.serveJson(document);
      const problem = await expectProblem(await confirm(site.siteId, originServer.origin), 403, "verification-failed");
      assert.match(problem.detail, reason);
    }
  });

  test("methods run in order: DNS TXT is the fallback when the well-known document is missing", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const host = testName("fallback");
    const origin = `http://${host}:${originServer.port}`;
    const { token, methods } = await start(site, { origin });
    assert.deepEqual(methods, ["well-known", "dns-txt"]);
    zone.set(host, { A: ["127.0.0.1"] });
    zone.set(`_service.${host}`, { TXT: ["v=spf1 -all", `service-verification=${token}`] });
    originServer.serve(notFound);
    originServer.forget();
    dns.queries.length = 0;
    await expectVerified(site.siteId, origin);
    assert.deepEqual(
      originServer.requests.map((r) => r.host),
      [`${host}:${originServer.port}`],
      "well-known was tried first",
    );
    assert.equal(dns.asked(`_service.${host}`, "TXT"), 1);
  });

  test("methods run in the order chosen; the first proof wins and the rest are not tried", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const host = testName("order");
    const origin = `http://${host}:${originServer.port}`;
    const { token } = await start(site, { origin, methods: ["dns-txt", "well-known"] });
    zone.set(host, { A: ["127.0.0.1"] });
    zone.set(`_service.${host}`, { TXT: [`service-verification=${token}`] });
    originServer.serveJson({ site_id: site.siteId, token });
    originServer.forget();
    await expectVerified(site.siteId, origin);
    assert.equal(originServer.connections, 0, "well-known was not needed");

    // Without the TXT record the well-known document, tried second, proves it.
    const again = await start(site, { origin, methods: ["dns-txt", "well-known"] });
    zone.set(`_service.${host}`, { TXT: ["service-verification=stale"] });
    originServer.serveJson({ site_id: site.siteId, token: again.token });
    dns.queries.length = 0;
    await expectVerified(site.siteId, origin);
    assert.equal(dns.asked(`_service.${host}`, "TXT"), 1);
  });

  test("without any proof the detail gives each method's reason", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const host = testName("none");
    const origin = `http://${host}:${originServer.port}`;
    await start(site, { origin });
    zone.set(host, { A: ["127.0.0.1"] });
    originServer.serve(notFound);
    const problem = await expectProblem(await confirm(site.siteId, origin), 403, "verification-failed");
    assert.match(problem.detail, /well-known: \/\.well-known\/service\.json answered HTTP 404/);
    assert.match(problem.detail, new RegExp(`dns-txt: no TXT record at _service\\.${host.replace(/\./g, "\\.")}`));
    assert.match(problem.detail, /4 of 5 attempts left/);
  });

  test("a new start replaces the pending token and its attempts", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const first = await start(site, { origin: originServer.origin });
    originServer.serve(notFound);
    for (let i = 0; i < 5; i++)
      await expectProblem(await confirm(site.siteId, originServer.origin), 403, "verification-failed");
    const second = await start(site, { origin: originServer.origin });
    assert.notEqual(second.token, first.token);
    originServer.serveJson({ site_id: site.siteId, token: first.token });
    const problem = await expectProblem(await confirm(site.siteId, originServer.origin), 403, "verification-failed");
    assert.match(problem.detail, /different token/);
    originServer.serveJson({ site_id: site.siteId, token: second.token });
    await expectVerified(site.siteId, originServer.origin);
  });

  test("a token allows 5 confirm attempts; the 6th needs a new start", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const { token } = await start(site, { origin: originServer.origin });
    originServer.serve(notFound);
    for (let left = 4; left >= 0; left--) {
      const problem = await expectProblem(await confirm(site.siteId, originServer.origin), 403, "verification-failed");
      assert.match(problem.detail, new RegExp(`${left} of 5 attempts left`));
    }
    originServer.serveJson({ site_id: site.siteId, token });
    originServer.forget();
    await expectProblem(await confirm(site.siteId, originServer.origin), 409, "verification-attempts-exhausted");
    assert.equal(originServer.connections, 0, "an exhausted token is not checked");
    const fresh = await start(site, { origin: originServer.origin });
    originServer.serveJson({ site_id: site.siteId, token: fresh.token });
    await expectVerified(site.siteId, originServer.origin);
  });

  test("concurrent confirms cannot spend more than 5 attempts", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    await start(site, { origin: originServer.origin });
    originServer.serve(notFound);
    const statuses = (
      await Promise.all(Array.from({ length: 8 }, () => confirm(site.siteId, originServer.origin)))
    ).map((r) => r.status);
    assert.deepEqual(statuses.sort(), [403, 403, 403, 403, 403, 409, 409, 409]);
  });

  test("an expired token is gone; confirming what was never started is not found", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const { token } = await start(site, { origin: originServer.origin });
    originServer.serveJson({ site_id: site.siteId, token });
    await service.services.db.siteVerification.updateMany({
      where: { siteId: site.siteId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expectProblem(await confirm(site.siteId, originServer.origin), 410, "verification-expired");
    await expectProblem(await confirm(site.siteId, "https://never-started.example"), 404, "verification-not-found");
    await expectProblem(await confirm("no-such-site-here", originServer.origin), 404, "site-not-found");
    await expectProblem(await confirm(site.siteId, "not an origin"), 400, "validation-error");
  });

  test("an unknown site cannot start; a retiring site cannot confirm", async () => {
    await expectProblem(
      await startRequest({ siteId: uniqueSiteId("nowhere"), claimToken: "x" }, { origin: originServer.origin }),
      404,
      "site-not-found",
    );
    const site = await registerSite(service, uniqueSiteId("verify"));
    await start(site, { origin: originServer.origin });
    await service.services.db.site.update({ where: { id: site.siteId }, data: { status: "retiring" } });
    await expectProblem(await confirm(site.siteId, originServer.origin), 410, "site-retired");
  });

  describe("the well-known fetch", () => {
    let other: OriginServer;
    before(async () => {
      other = await OriginServer.start();
    });
    after(() => other?.close());

    async function failure(document: Handler): Promise<string> {
      const site = await registerSite(service, uniqueSiteId("verify"));
      const { token } = await start(site, { origin: originServer.origin });
      originServer.serve(document);
      other.serveJson({ site_id: site.siteId, token });
      const problem = await expectProblem(await confirm(site.siteId, originServer.origin), 403, "verification-failed");
      return problem.detail;
    }

    test("follows redirects within the origin", async () => {
      const site = await registerSite(service, uniqueSiteId("verify"));
      const { token } = await start(site, { origin: originServer.origin });
      originServer.serve((req, res) => {
        if (req.url === "/.well-known/service.json") res.writeHead(301, { location: "/proofs/1" }).end();
        else if (req.url === "/proofs/1") res.writeHead(307, { location: `${originServer.origin}/proofs/2` }).end();
        else json(res, { site_id: site.siteId, token });
      });
      originServer.forget();
      await expectVerified(site.siteId, originServer.origin);
      assert.deepEqual(
        originServer.requests.map((r) => r.path),
        ["/.well-known/service.json", "/proofs/1", "/proofs/2"],
      );
    });

    test("refuses a redirect off the origin, even to another port of the same host, and never follows it", async () => {
      const targets = [
        `${other.origin}/.well-known/service.json`,
        `http://localhost:${originServer.port}/.well-known/service.json`,
        `https://127.0.0.1:${originServer.port}/x`,
      ];
      for (const target of targets) {
        other.forget();
        const detail = await failure((_req, res) => res.writeHead(302, { location: target }).end());
        assert.match(detail, /off the origin/);
        assert.equal(other.connections, 0);
      }
    });

    test("gives up after 3 redirects", async () => {
      let hops = 0;
      const detail = await failure((_req, res) => res.writeHead(302, { location: `/hop/${++hops}` }).end());
      assert.match(detail, /more than 3 redirects/);
      assert.equal(hops, 4);
    });

    test("refuses a document over 16 KiB, announced or streamed", async () => {
      const big = JSON.stringify({ padding: "x".repeat(17 * 1024) });
      let detail = await failure((_req, res) =>
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(big) }).end(big),
      );
      assert.match(detail, /larger than 16384 bytes/);
      detail = await failure((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        // Chunked, without a length: the cap applies while reading. The stream never ends.
        const timer = setInterval(() => res.write("x".repeat(4096)), 5);
        res.on("close", () => clearInterval(timer));
      });
      assert.match(detail, /larger than 16384 bytes/);
    });

    test("accepts only JSON", async () => {
      let detail = await failure((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<h1>hi</h1>"));
      assert.match(detail, /served as "text\/html", not application\/json/);
      detail = await failure((_req, res) => res.writeHead(200).end("{}"));
      assert.match(detail, /not application\/json/);
      detail = await failure((_req, res) =>
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end("{not json"),
      );
      assert.match(detail, /not valid JSON/);
      detail = await failure((_req, res) => res.writeHead(500, { "content-type": "application/json" }).end("{}"));
      assert.match(detail, /answered HTTP 500/);
    });

    test("gives up on a slow origin after 5 s in all", async () => {
      const started = Date.now();
      // Headers at once, then a byte a second: activity does not extend the deadline.
      const detail = await failure((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        const timer = setInterval(() => res.write(" "), 1000);
        res.on("close", () => clearInterval(timer));
      });
      const took = Date.now() - started;
      assert.match(detail, /no complete answer within 5 s/);
      assert.ok(took >= 5000 && took < 8000, `took ${took} ms`);
    });
  });
});

describe("with private origins refused", () => {
  before(async () => {
    service = await startService(false);
  });
  after(() => service?.stop());

  test("a private IP-address origin cannot be started", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const origins: [string, string][] = [
      [originServer.origin, "loopback"],
      ["http://[::1]:8080", "loopback"],
      ["http://[::ffff:127.0.0.1]", "IPv4-mapped loopback"],
      ["https://10.1.2.3", "private"],
      ["https://192.168.1.1", "private"],
      ["http://169.254.169.254", "link-local"],
      ["http://100.64.0.1", "carrier-grade NAT"],
      ["http://[fd00::1]", "unique-local"],
      ["http://0.0.0.0", "unspecified"],
    ];
    for (const [origin, kind] of origins) {
      const problem = await expectProblem(await startRequest(site, { origin }), 400, "private-origin");
      assert.ok(problem.detail.includes(`is not a public address (${kind})`), problem.detail);
    }
    assert.equal(await service.services.db.siteVerification.count({ where: { siteId: site.siteId } }), 0);
  });

  test("a host name that resolves to a private address is never connected to", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const cases: [Partial<Record<RecordType, string[]>>, string][] = [
      [{ A: ["127.0.0.1"] }, "127.0.0.1, not a public address (loopback)"],
      [{ AAAA: ["::ffff:127.0.0.1"] }, "::ffff:127.0.0.1, not a public address (IPv4-mapped loopback)"],
      // One private address among public ones is enough to refuse.
      [{ A: ["198.20.0.7", "10.0.0.8"] }, "10.0.0.8, not a public address (private)"],
    ];
    for (const [records, shown] of cases) {
      const host = testName("private");
      const origin = `http://${host}:${originServer.port}`;
      const { token } = await start(site, { origin, methods: ["well-known"] });
      zone.set(host, records);
      originServer.serveJson({ site_id: site.siteId, token });
      originServer.forget();
      const problem = await expectProblem(await confirm(site.siteId, origin), 403, "verification-failed");
      assert.ok(problem.detail.includes(`${host} resolves to ${shown}`), problem.detail);
      assert.equal(originServer.connections, 0);
    }
  });

  test("a rebinding resolver (public, then private) cannot steer the connection to loopback", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const host = testName("rebind");
    const origin = `http://${host}:${originServer.port}`;
    const { token } = await start(site, { origin, methods: ["well-known"] });
    let answers = 0;
    // 198.20.0.7 (just past the benchmarking range) passes the policy; every later answer is loopback.
    zone.set(host, { A: () => (answers++ === 0 ? ["198.20.0.7"] : ["127.0.0.1"]) });
    originServer.serveJson({ site_id: site.siteId, token });
    originServer.forget();
    const problem = await expectProblem(await confirm(site.siteId, origin), 403, "verification-failed");
    assert.match(problem.detail, /198\.20\.0\.7/);
    assert.equal(answers, 1, "the name is resolved once");
    assert.equal(originServer.connections, 0, "nothing reached the loopback server");
    assert.deepEqual(originServer.requests, []);
  });

  test("DNS TXT still verifies a host name: it connects to nothing", async () => {
    const site = await registerSite(service, uniqueSiteId("verify"));
    const host = testName("txt");
    const origin = `https://${host}`;
    const { token } = await start(site, { origin, methods: ["dns-txt"] });
    zone.set(`_service.${host}`, { TXT: [`service-verification=${token}`] });
    await expectVerified(site.siteId, origin);
  });
});

describe("the well-known fetch on its own", () => {
  const resolver = () => new HostResolver(dns.server);

  test("a redirect to a private address is refused and not followed", async () => {
    // 127.0.0.1 stands in for the public internet here; every other address keeps the real policy.
    const refuse = (address: string) => (address === "127.0.0.1" ? null : refusedAddress(address));
    const target = await OriginServer.start("127.0.0.2");
    try {
      target.serveJson({ site_id: "s", token: "t" });
      const host = testName("public");
      zone.set(host, { A: ["127.0.0.1"] });
      const origin = `http://${host}:${originServer.port}`;
      for (const location of [
        `${target.origin}/.well-known/service.json`,
        `http://[::1]:${target.port}/`,
        `http://${host}:${target.port}/`,
      ]) {
        originServer.serve((_req, res) => res.writeHead(302, { location }).end());
        originServer.forget();
        const check = await checkWellKnown(origin, { siteId: "s", token: "t" }, { resolver: resolver(), refuse });
        assert.equal(check.ok, false);
        assert.match((check as { reason: string }).reason, /off the origin/);
        assert.equal(originServer.requests.length, 1);
      }
      assert.equal(target.connections, 0);
    } finally {
      await target.close();
    }
  });

  test("a private IP-address origin is never connected to", async () => {
    originServer.serveJson({ site_id: "s", token: "t" });
    originServer.forget();
    const check = await checkWellKnown(
      originServer.origin,
      { siteId: "s", token: "t" },
      { resolver: resolver(), refuse: refusedAddress },
    );
    assert.deepEqual(check, { ok: false, reason: "127.0.0.1 is not a public address (loopback)" });
    assert.equal(originServer.connections, 0);
  });

  test("security.dns_resolver must be an IP address with an optional port", () => {
    const config = (value: string) => buildConfig(testConfigDocument(), { "security.dns_resolver": value });
    assert.equal(config("127.0.0.1:5353").security.dnsResolver, "127.0.0.1:5353");
    assert.equal(config("[::1]:53").security.dnsResolver, "[::1]:53");
    assert.equal(config("").security.dnsResolver, null);
    assert.throws(() => config("dns.example:53"), ConfigError);
  });
});
