// Site ownership and write auth over real HTTP and SQLite: the claim auth kind, which sites
// accept writes under each verification policy, HMAC secrets and signed writes (skew, tamper,
// replay). The worker is off: accepted writes stay queued and never reach Matrix.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { signRequest } from "../../src/security/request-signature.ts";
import { runMaintenance } from "../../src/app/maintenance-pass.ts";
import { expectProblem } from "../support/problems.ts";

const CONFIG_SITE = uniqueSiteId("cfg");
const CONFIG_SIGNED = uniqueSiteId("cfg-signed");
const CONFIG_SECRET = "config-declared-secret";
const OTHER_ORIGIN = "https://elsewhere.example";

let service: TestService;
const json = { "content-type": "application/json" };

async function register(base: string, siteId?: string): Promise<{ site_id: string; claim_token: string }> {
  const res = await fetch(
    `${base}/api/v1/sites`,
    siteId ? { method: "POST", headers: json, body: JSON.stringify({ site_id: siteId }) } : { method: "POST" },
  );
  assert.equal(res.status, 201);
  return (await res.json()) as { site_id: string; claim_token: string };
}

const secretRequest = (base: string, siteId: string, token: string | null, body?: unknown) =>
  fetch(`${base}/api/v1/sites/${siteId}/secret`, {
    method: "POST",
    headers: { ...json, ...(token === null ? {} : { "x-service-claim-token": token }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Simulates a completed origin verification. */
const verifyOrigin = (target: TestService, siteId: string, origin = TEST_ORIGIN) =>
  target.services.db.siteOrigin.create({ data: { siteId, origin, source: "verified" } });

const commentsPath = (siteId: string) => `/api/v1/sites/${siteId}/pages/page/comments`;
let writes = 0;

/** A visitor comment write from `origin` (null: none); the simplest site-write request. */
async function write(base: string, siteId: string, origin: string | null): Promise<Response> {
  const visitor = new Visitor(base, origin);
  return visitor.post(commentsPath(siteId), await visitor.commentBody(siteId, "page", "hello"), {
    "idempotency-key": `w-${++writes}`,
  });
}

before(async () => {
  service = await startTestService({
    worker: false,
    sites: {
      [CONFIG_SITE]: { origins: [TEST_ORIGIN] },
      [CONFIG_SIGNED]: { origins: [TEST_ORIGIN], secret: CONFIG_SECRET },
    },
  });
});
after(() => service?.stop());

describe("claim auth", () => {
  test("missing, wrong and foreign tokens are 403 invalid-claim-token; the right one passes", async () => {
    const site = await register(service.url, uniqueSiteId("claim"));
    const other = await register(service.url);
    await expectProblem(await secretRequest(service.url, site.site_id, null), 403, "invalid-claim-token");
    await expectProblem(await secretRequest(service.url, site.site_id, ""), 403, "invalid-claim-token");
    await expectProblem(
      await secretRequest(service.url, site.site_id, `${site.claim_token}x`),
      403,
      "invalid-claim-token",
    );
    await expectProblem(await secretRequest(service.url, site.site_id, other.claim_token), 403, "invalid-claim-token");
    // Past the claim check, the route's own rule answers: no verified origin yet.
    await expectProblem(await secretRequest(service.url, site.site_id, site.claim_token), 409, "site-not-verified");
  });

  test("an unregistered site is 404, a malformed id 400", async () => {
    const { claim_token } = await register(service.url);
    await expectProblem(await secretRequest(service.url, uniqueSiteId("nobody"), claim_token), 404, "site-not-found");
    await expectProblem(await secretRequest(service.url, "Not_A_Site", claim_token), 400, "validation-error");
  });

  test("a retiring site's token and a config-declared site (no token) are refused", async () => {
    const site = await register(service.url, uniqueSiteId("retiring"));
    await verifyOrigin(service, site.site_id);
    await service.services.db.site.update({ where: { id: site.site_id }, data: { status: "retiring" } });
    await expectProblem(await secretRequest(service.url, site.site_id, site.claim_token), 403, "invalid-claim-token");
    await expectProblem(await secretRequest(service.url, CONFIG_SITE, "anything"), 403, "invalid-claim-token");
  });

  test("the domain check is reusable outside the adapter", async () => {
    const site = await register(service.url);
    const found = await service.services.sites.requireClaim(site.site_id, site.claim_token);
    assert.equal(found.id, site.site_id);
    await assert.rejects(
      service.services.sites.requireClaim(site.site_id, undefined),
      (err: any) => err.code === "invalid-claim-token" && err.status === 403,
    );
  });
});

describe("which sites accept writes (optional policy, the default)", () => {
  test("a generated id accepts writes from any Origin until it verifies one, then only from those", async () => {
    const { site_id } = await register(service.url);
    assert.equal((await write(service.url, site_id, OTHER_ORIGIN)).status, 202);
    assert.equal((await write(service.url, site_id, TEST_ORIGIN)).status, 202);
    await expectProblem(await write(service.url, site_id, null), 403, "origin-not-allowed");
    await verifyOrigin(service, site_id);
    assert.equal((await write(service.url, site_id, TEST_ORIGIN)).status, 202);
    await expectProblem(await write(service.url, site_id, OTHER_ORIGIN), 403, "origin-not-allowed");
  });

  test("a chosen id accepts none until it has verified an origin, and the name stays reserved", async () => {
    const { site_id } = await register(service.url, uniqueSiteId("chosen"));
    const before = await service.services.db.submission.count();
    await expectProblem(await write(service.url, site_id, TEST_ORIGIN), 403, "site-not-verified");
    await expectProblem(
      await fetch(`${service.url}/api/v1/sites`, { method: "POST", headers: json, body: JSON.stringify({ site_id }) }),
      409,
      "site-id-taken",
    );
    assert.equal(await service.services.db.submission.count(), before);
    await verifyOrigin(service, site_id);
    assert.equal((await write(service.url, site_id, TEST_ORIGIN)).status, 202);
    await expectProblem(await write(service.url, site_id, OTHER_ORIGIN), 403, "origin-not-allowed");
  });

  test("a row without an ownership proof is treated like a chosen id", async () => {
    const id = uniqueSiteId("legacy");
    await service.services.db.site.create({ data: { id, source: "api", idGenerated: true } });
    await expectProblem(await write(service.url, id, TEST_ORIGIN), 403, "site-not-verified");
    await verifyOrigin(service, id);
    assert.equal((await write(service.url, id, TEST_ORIGIN)).status, 202);
  });

  test("config-declared sites write from their origins; unknown ids never", async () => {
    assert.equal((await write(service.url, CONFIG_SITE, TEST_ORIGIN)).status, 202);
    await expectProblem(await write(service.url, CONFIG_SITE, OTHER_ORIGIN), 403, "origin-not-allowed");
    await expectProblem(await write(service.url, uniqueSiteId("unknown"), TEST_ORIGIN), 404, "site-not-found");
  });
});

describe("strict policy", () => {
  let strict: TestService;
  before(async () => {
    strict = await startTestService({
      worker: false,
      sites: { [CONFIG_SITE]: { origins: [TEST_ORIGIN] } },
      overrides: { "server.listen_port": 0, "security.verification_policy": "strict" },
    });
  });
  after(() => strict?.stop());

  test("every API-registered site needs a verified origin first; config sites do not", async () => {
    const generated = await register(strict.url);
    const chosen = await register(strict.url, uniqueSiteId("strict"));
    for (const { site_id } of [generated, chosen]) {
      await expectProblem(await write(strict.url, site_id, TEST_ORIGIN), 403, "site-not-verified");
      await verifyOrigin(strict, site_id);
      assert.equal((await write(strict.url, site_id, TEST_ORIGIN)).status, 202);
      await expectProblem(await write(strict.url, site_id, OTHER_ORIGIN), 403, "origin-not-allowed");
    }
    assert.equal((await write(strict.url, CONFIG_SITE, TEST_ORIGIN)).status, 202);
  });
});

describe("[sites] entries across restarts", () => {
  test("a removed entry stops accepting writes; a declared secret cannot be replaced", async () => {
    const database = await freshDatabase("sqlite");
    const removed = uniqueSiteId("removed");
    const adopted = uniqueSiteId("adopted");
    const start = (sites: Record<string, unknown>) =>
      startTestService({ databaseUrl: database.url, worker: false, sites, overrides: { "server.listen_port": 0 } });

    let running = await start({ [removed]: { origins: [TEST_ORIGIN] } });
    let registration!: { site_id: string; claim_token: string };
    try {
      assert.equal((await write(running.url, removed, TEST_ORIGIN)).status, 202);
      registration = await register(running.url, adopted);
    } finally {
      await running.stop();
    }

    // The API-registered site is now declared, secret included; the removed one is not.
    running = await start({ [adopted]: { origins: [TEST_ORIGIN], secret: "declared" } });
    try {
      await expectProblem(await write(running.url, removed, TEST_ORIGIN), 403, "site-not-verified");
      await expectProblem(
        await fetch(`${running.url}/api/v1/sites`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ site_id: removed }),
        }),
        409,
        "site-id-taken",
      );
      await expectProblem(
        await secretRequest(running.url, adopted, registration.claim_token, { rotate: true }),
        409,
        "config-declared",
      );
      assert.throws(
        () => running.services.sites.requireRevocableOrigin(adopted, `${TEST_ORIGIN}/`),
        (err: any) => err.code === "config-declared" && err.status === 409,
      );
      running.services.sites.requireRevocableOrigin(adopted, OTHER_ORIGIN);
      assert.throws(
        () => running.services.sites.requireReplaceableSecret(adopted),
        (err: any) => err.code === "config-declared",
      );
    } finally {
      await running.stop();
    }
  });
});

describe("secrets", () => {
  test("issue once, refuse a second issue, rotate on request; writes then need the newest secret", async () => {
    const site = await register(service.url, uniqueSiteId("secret"));
    await verifyOrigin(service, site.site_id);
    const res = await secretRequest(service.url, site.site_id, site.claim_token);
    assert.equal(res.status, 200);
    const first = (await res.json()) as { site_id: string; secret: string };
    assert.equal(first.site_id, site.site_id);
    assert.match(first.secret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(
      (await service.services.db.site.findUniqueOrThrow({ where: { id: site.site_id } })).hmacSecret,
      first.secret,
    );

    await expectProblem(await secretRequest(service.url, site.site_id, site.claim_token), 409, "secret-exists");
    await expectProblem(
      await secretRequest(service.url, site.site_id, site.claim_token, { rotate: false }),
      409,
      "secret-exists",
    );
    await expectProblem(
      await secretRequest(service.url, site.site_id, site.claim_token, { rotate: "yes" }),
      400,
      "validation-error",
    );
    const rotated = await secretRequest(service.url, site.site_id, site.claim_token, { rotate: true });
    assert.equal(rotated.status, 200);
    const second = (await rotated.json()) as { secret: string };
    assert.notEqual(second.secret, first.secret);

    await expectProblem(await write(service.url, site.site_id, TEST_ORIGIN), 403, "signature-required");
    await expectProblem(await signedWrite(site.site_id, first.secret), 403, "invalid-request-signature");
    assert.equal((await signedWrite(site.site_id, second.secret)).status, 202);
  });
});

const now = () => Math.floor(Date.now() / 1000);

/** A signed comment write from a site's backend (no Origin); `tamper` changes what is sent after signing. */
async function signedWrite(
  siteId: string,
  secret: string,
  options: {
    timestamp?: number;
    sign?: { method?: string; target?: string; body?: string; timestamp?: string };
    send?: { body?: string; timestamp?: string; signature?: string };
    key?: string;
    body?: string;
  } = {},
): Promise<Response> {
  const backend = new Visitor(service.url, null);
  const target = commentsPath(siteId);
  const body = options.body ?? JSON.stringify(await backend.commentBody(siteId, "page", "from the backend"));
  const timestamp = String(options.timestamp ?? now());
  const signed = { method: "POST", target, body, timestamp, ...options.sign };
  const signature = signRequest(secret, { ...signed, body: Buffer.from(signed.body) });
  return backend.post(target, options.send?.body ?? body, {
    "idempotency-key": options.key ?? `s-${++writes}`,
    "x-service-timestamp": options.send?.timestamp ?? timestamp,
    "x-service-signature": options.send?.signature ?? signature,
  });
}

describe("HMAC-signed writes", () => {
  test("a valid signature is accepted", async () => {
    assert.equal((await signedWrite(CONFIG_SIGNED, CONFIG_SECRET)).status, 202);
  });

  test("clock skew: within ±5 minutes accepted, beyond refused", async () => {
    // The service's clock may be a second ahead of ours by the time it checks, so the edges are
    // approached from the side that stays deterministic (exact edges: the unit tests).
    assert.equal((await signedWrite(CONFIG_SIGNED, CONFIG_SECRET, { timestamp: now() + 300 })).status, 202);
    assert.equal((await signedWrite(CONFIG_SIGNED, CONFIG_SECRET, { timestamp: now() - 299 })).status, 202);
    await expectProblem(
      await signedWrite(CONFIG_SIGNED, CONFIG_SECRET, { timestamp: now() - 301 }),
      403,
      "invalid-request-signature",
    );
    await expectProblem(
      await signedWrite(CONFIG_SIGNED, CONFIG_SECRET, { timestamp: now() + 302 }),
      403,
      "invalid-request-signature",
    );
  });

  test("tampered method, path, body or timestamp, and malformed headers, are refused", async () => {
    const target = commentsPath(CONFIG_SIGNED);
    const ts = String(now());
    const cases = [
      { sign: { method: "PUT" } },
      { sign: { target: commentsPath(CONFIG_SITE) } },
      { sign: { target: `${target}?x=1` } },
      { sign: { body: "{}" } },
      { send: { timestamp: String(Number(ts) - 1) }, timestamp: Number(ts) },
      { send: { signature: "A".repeat(64) } },
      { send: { timestamp: "soon" } },
    ];
    for (const tamper of cases)
      await expectProblem(await signedWrite(CONFIG_SIGNED, CONFIG_SECRET, tamper), 403, "invalid-request-signature");
    // A whole body swapped after signing.
    const backend = new Visitor(service.url, null);
    const other = JSON.stringify(await backend.commentBody(CONFIG_SIGNED, "page", "swapped"));
    await expectProblem(
      await signedWrite(CONFIG_SIGNED, CONFIG_SECRET, { send: { body: other } }),
      403,
      "invalid-request-signature",
    );
    // Only one of the two headers.
    const body = await backend.commentBody(CONFIG_SIGNED, "page", "half");
    await expectProblem(
      await backend.post(target, body, { "idempotency-key": "half", "x-service-timestamp": ts }),
      403,
      "signature-required",
    );
  });

  test("a replayed signature has no second effect; a re-signed retry replays idempotently", async () => {
    const backend = new Visitor(service.url, null);
    const target = commentsPath(CONFIG_SIGNED);
    const body = JSON.stringify(await backend.commentBody(CONFIG_SIGNED, "page", "once"));
    const timestamp = now();
    const headers = (ts: number, key: string) => ({
      "idempotency-key": key,
      "x-service-timestamp": String(ts),
      "x-service-signature": signRequest(CONFIG_SECRET, {
        method: "POST",
        target,
        body: Buffer.from(body),
        timestamp: String(ts),
      }),
    });
    const count = () => service.services.db.submission.count();
    const before = await count();
    const first = await backend.post(target, body, headers(timestamp, "replay-1"));
    assert.equal(first.status, 202);
    await expectProblem(
      await backend.post(target, body, headers(timestamp, "replay-1")),
      403,
      "replayed-request-signature",
    );
    await expectProblem(
      await backend.post(target, body, headers(timestamp, "replay-2")),
      403,
      "replayed-request-signature",
    );
    assert.equal(await count(), before + 1);

    const retry = await backend.post(target, body, headers(timestamp - 1, "replay-1"));
    assert.equal(retry.status, 202);
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(await retry.json(), await first.json());
    assert.equal(await count(), before + 1);
  });

  test("recorded signatures expire with their window and are pruned by maintenance", async () => {
    const timestamp = now();
    const expiresAt = new Date((timestamp + 301) * 1000);
    const recorded = () => service.services.db.seenRequestSignature.count({ where: { expiresAt } });
    const before = await recorded();
    assert.equal((await signedWrite(CONFIG_SIGNED, CONFIG_SECRET, { timestamp })).status, 202);
    assert.equal(await recorded(), before + 1);
    await runMaintenance(service.services, new Date(expiresAt.getTime() - 1));
    assert.equal(await recorded(), before + 1, "kept while the signature could still be accepted");
    await runMaintenance(service.services, new Date(expiresAt.getTime() + 1));
    assert.equal(await recorded(), 0);
  });
});
