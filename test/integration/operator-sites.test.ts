// The operator site API over real HTTP and SQLite: the listing merged with the [sites]
// overlay, origin revocation, secret and claim-token rotation (with the writes they govern),
// config snippets, operator auth, and the routes' absence without an operator token.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { buildConfig, parseConfigText } from "../../src/config/config.ts";
import { hashClaimToken } from "../../src/features/sites/sites.ts";
import { signRequest } from "../../src/security/request-signature.ts";
import {
  startTestService,
  testConfigDocument,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { TEST_OPERATOR_TOKEN } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { expectProblem } from "../support/problems.ts";
import { registerSite } from "../support/sites.ts";

const OTHER_ORIGIN = "https://other.example";
const DECLARED = uniqueSiteId("declared");
const DECLARED_SECRET = uniqueSiteId("declared-secret");
const CONFIG_SECRET = "config-secret-value";

let service: TestService;
let visitor: Visitor;

async function op(
  method: string,
  path: string,
  body?: unknown,
  token: string | null = TEST_OPERATOR_TOKEN,
  base = service.url,
): Promise<Response> {
  return fetch(`${base}/api/v1/operator/sites${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function ok(res: Response): Promise<any> {
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

/** An API-registered site with `origins` verified. */
const apiSite = async (origins = [TEST_ORIGIN]) => (await registerSite(service, uniqueSiteId("api"), origins)).siteId;

/** A comment write to `siteId`: from TEST_ORIGIN, HMAC-signed when `secret` is given. */
async function write(siteId: string, secret?: string): Promise<Response> {
  const target = `/api/v1/sites/${siteId}/pages/page/comments`;
  const body = JSON.stringify(await visitor.commentBody(siteId, "page", "hello"));
  const headers: Record<string, string> = { "idempotency-key": randomBytes(8).toString("hex") };
  if (secret !== undefined) {
    headers["x-service-timestamp"] = String(Math.floor(Date.now() / 1000));
    headers["x-service-signature"] = signRequest(secret, {
      method: "POST",
      target,
      body: Buffer.from(body),
      timestamp: headers["x-service-timestamp"],
    });
  }
  return visitor.post(target, body, headers);
}

const listed = async (siteId: string) => ((await ok(await op("QUERY", "", { site_id: siteId }))) as any).data[0];

before(async () => {
  service = await startTestService({
    worker: false,
    sites: {
      [DECLARED]: { origins: [TEST_ORIGIN] },
      [DECLARED_SECRET]: { origins: [TEST_ORIGIN], secret: CONFIG_SECRET },
    },
    overrides: { "rate_limit.operator": 10_000 },
  });
  visitor = new Visitor(service.url, TEST_ORIGIN);
});
after(() => service?.stop());

describe("operator auth", () => {
  test("a missing or wrong operator token is 403 invalid-operator-token on every operator route", async () => {
    const site = await apiSite();
    const calls: [string, string, unknown?][] = [
      ["QUERY", ""],
      ["POST", `/${site}/origin-revocations`, { origin: TEST_ORIGIN }],
      ["POST", `/${site}/secret-rotations`],
      ["DELETE", `/${site}/secret`],
      ["POST", `/${site}/claim-token-rotations`],
      ["GET", `/${site}/config-snippet`],
    ];
    for (const [method, path, body] of calls) {
      for (const token of [null, "wrong", `${TEST_OPERATOR_TOKEN}x`]) {
        const res = await op(method, path, body, token);
        assert.equal(res.headers.get("www-authenticate"), null);
        await expectProblem(res, 403, "invalid-operator-token");
      }
    }
    assert.deepEqual(
      (await listed(site)).verified_origins,
      [{ origin: TEST_ORIGIN, source: "verified" }],
      "nothing changed",
    );
  });

  test("without an operator token the operator routes do not exist, though the document describes them", async () => {
    const plain = await startTestService({
      worker: false,
      sites: { [DECLARED]: { origins: [TEST_ORIGIN] } },
      overrides: { "server.listen_port": 0, "security.operator_token": "" },
    });
    try {
      for (const [method, path] of [
        ["QUERY", ""],
        ["POST", `/${DECLARED}/secret-rotations`],
        ["POST", `/${DECLARED}/secret/rotate`],
        ["DELETE", `/${DECLARED}/secret`],
        ["GET", `/${DECLARED}/config-snippet`],
      ] as const) {
        await expectProblem(await op(method, path, undefined, TEST_OPERATOR_TOKEN, plain.url), 404, "not-found");
      }
      const document = (await (await fetch(`${plain.url}/api/v1/openapi.json`)).json()) as any;
      const list = document.paths["/api/v1/operator/sites"].query;
      assert.match(list.description, /operator_token/);
      assert.deepEqual(list.responses["404"]["x-problem-codes"], ["not-found"]);
    } finally {
      await plain.stop();
    }
  });
});

describe("site listing", () => {
  test("every site, merged with the [sites] overlay", async () => {
    const site = await apiSite();
    // An origin the declared site verified on top of its declared one.
    await service.services.db.siteOrigin.create({
      data: { siteId: DECLARED, origin: OTHER_ORIGIN, source: "verified" },
    });
    try {
      const body = await ok(await op("QUERY", "", { per_page: 100 }));
      const byId = new Map(body.data.map((s: any) => [s.site_id, s]));
      const declared = byId.get(DECLARED) as any;
      assert.equal(declared.source, "config");
      assert.equal(declared.status, "active");
      assert.equal(declared.id_generated, false);
      assert.equal(declared.verified, true);
      assert.deepEqual(declared.verified_origins, [
        { origin: TEST_ORIGIN, source: "config" },
        { origin: OTHER_ORIGIN, source: "verified" },
      ]);
      assert.equal(declared.has_secret, false);
      assert.equal(declared.secret_source, null);
      assert.equal(declared.space_room_id, null);
      const stored = await service.services.db.site.findUniqueOrThrow({ where: { id: DECLARED } });
      assert.equal(declared.created_at, stored.createdAt.toISOString());
      const withSecret = byId.get(DECLARED_SECRET) as any;
      assert.equal(withSecret.has_secret, true);
      assert.equal(withSecret.secret_source, "config");
      const api = byId.get(site) as any;
      assert.equal(api.source, "api");
      assert.equal(api.verified, true);
      assert.deepEqual(api.verified_origins, [{ origin: TEST_ORIGIN, source: "verified" }]);
      assert.equal(body.meta.total, await service.services.db.site.count());
      assert.equal(body.meta.per_page, 100);
    } finally {
      await service.services.db.siteOrigin.delete({
        where: { siteId_origin: { siteId: DECLARED, origin: OTHER_ORIGIN } },
      });
    }
  });

  test("a generated id without verified origins is listed unverified", async () => {
    const res = await fetch(`${service.url}/api/v1/sites`, { method: "POST" });
    const { site_id } = (await res.json()) as any;
    const item = await listed(site_id);
    assert.equal(item.id_generated, true);
    assert.equal(item.verified, false);
    assert.deepEqual(item.verified_origins, []);
  });

  test("pages by site id; site_id filters to one", async () => {
    await apiSite();
    await apiSite();
    const all = await ok(await op("QUERY", ""));
    const total = all.meta.total;
    assert.ok(total >= 4);
    assert.equal(all.meta.page, 1);
    assert.equal(all.meta.per_page, 20);
    const ids = (await ok(await op("QUERY", "", { per_page: 100 }))).data.map((s: any) => s.site_id);
    assert.deepEqual(ids, [...ids].sort());
    const second = await ok(await op("QUERY", "", { page: 2, per_page: 2 }));
    assert.deepEqual(
      second.data.map((s: any) => s.site_id),
      ids.slice(2, 4),
    );
    assert.deepEqual(second.meta, { total, page: 2, per_page: 2, total_pages: Math.ceil(total / 2) });
    // Past the last page: no rows, the total still counted.
    const past = await ok(await op("QUERY", "", { page: total + 1, per_page: 1 }));
    assert.deepEqual(past, { data: [], meta: { total, page: total + 1, per_page: 1, total_pages: total } });
    const one = await ok(await op("QUERY", "", { site_id: DECLARED }));
    assert.deepEqual(
      one.data.map((s: any) => s.site_id),
      [DECLARED],
    );
    assert.deepEqual(one.meta, { total: 1, page: 1, per_page: 20, total_pages: 1 });
    const none = await ok(await op("QUERY", "", { site_id: uniqueSiteId("unknown") }));
    assert.deepEqual(none, { data: [], meta: { total: 0, page: 1, per_page: 20, total_pages: 0 } });
  });

  test("invalid paging or site ids are 400", async () => {
    for (const body of [{ per_page: 0 }, { per_page: 101 }, { page: 0 }, { site_id: "Not_A_Site" }, { extra: 1 }]) {
      await expectProblem(await op("QUERY", "", body), 400, "validation-error");
    }
  });
});

describe("origin revocation", () => {
  for (const form of ["origin-revocations", "origins/revoke"]) {
    test(`POST …/${form}: verified origins go, declared ones stay`, async () => {
      const site = await apiSite([TEST_ORIGIN, OTHER_ORIGIN]);
      assert.equal((await write(site)).status, 202);
      const updated = await ok(await op("POST", `/${site}/${form}`, { origin: `${TEST_ORIGIN}/` }));
      assert.equal(updated.site_id, site);
      assert.deepEqual(updated.verified_origins, [{ origin: OTHER_ORIGIN, source: "verified" }]);
      await expectProblem(await write(site), 403, "origin-not-allowed");
      await expectProblem(await op("POST", `/${site}/${form}`, { origin: TEST_ORIGIN }), 404, "origin-not-found");
      const last = await ok(await op("POST", `/${site}/${form}`, { origin: OTHER_ORIGIN }));
      assert.deepEqual(last.verified_origins, []);
      assert.equal(last.verified, false);

      await expectProblem(await op("POST", `/${DECLARED}/${form}`, { origin: TEST_ORIGIN }), 409, "config-declared");
      assert.deepEqual((await listed(DECLARED)).verified_origins, [{ origin: TEST_ORIGIN, source: "config" }]);
      await expectProblem(await op("POST", `/${site}/${form}`, { origin: "not an origin" }), 400, "validation-error");
      await expectProblem(
        await op("POST", `/${site}/${form}`, { origin: "https://blog.example/path" }),
        400,
        "validation-error",
      );
      await expectProblem(await op("POST", `/${site}/${form}`, {}), 400, "validation-error");
      await expectProblem(
        await op("POST", `/${uniqueSiteId("unknown")}/${form}`, { origin: TEST_ORIGIN }),
        404,
        "site-not-found",
      );
    });
  }
});

describe("secrets", () => {
  for (const form of ["secret-rotations", "secret/rotate"]) {
    test(`POST …/${form} puts the site in secret mode; DELETE …/secret takes it out`, async () => {
      const site = await apiSite();
      assert.equal((await write(site)).status, 202);
      const { site_id, secret } = await ok(await op("POST", `/${site}/${form}`));
      assert.equal(site_id, site);
      assert.equal(Buffer.from(secret, "base64url").length, 32);
      assert.equal((await service.services.db.site.findUniqueOrThrow({ where: { id: site } })).hmacSecret, secret);
      assert.deepEqual([(await listed(site)).has_secret, (await listed(site)).secret_source], [true, "api"]);
      await expectProblem(await write(site), 403, "signature-required");
      assert.equal((await write(site, secret)).status, 202);

      const rotated = (await ok(await op("POST", `/${site}/${form}`))).secret;
      assert.notEqual(rotated, secret);
      await expectProblem(await write(site, secret), 403, "invalid-request-signature");
      assert.equal((await write(site, rotated)).status, 202);

      const removed = await ok(await op("DELETE", `/${site}/secret`));
      assert.equal(removed.site_id, site);
      assert.equal(removed.has_secret, false);
      assert.equal(removed.secret_source, null);
      assert.equal((await write(site)).status, 202);
      assert.equal((await ok(await op("DELETE", `/${site}/secret`))).has_secret, false, "removing no secret succeeds");
    });

    test(`POST …/${form} refuses a secret declared in [sites] and unknown sites`, async () => {
      await expectProblem(await op("POST", `/${DECLARED_SECRET}/${form}`), 409, "config-declared");
      await expectProblem(await op("POST", `/${uniqueSiteId("unknown")}/${form}`), 404, "site-not-found");
      assert.equal((await write(DECLARED_SECRET, CONFIG_SECRET)).status, 202, "the declared secret still applies");
    });
  }

  test("a declared site without a declared secret may get one through the API", async () => {
    await ok(await op("POST", `/${DECLARED}/secret-rotations`));
    try {
      assert.equal((await listed(DECLARED)).secret_source, "api");
      await expectProblem(await write(DECLARED), 403, "signature-required");
    } finally {
      await ok(await op("DELETE", `/${DECLARED}/secret`));
    }
    assert.equal((await write(DECLARED)).status, 202);
  });

  test("the owner cannot replace a secret declared in [sites] either", async () => {
    const { claim_token } = await ok(await op("POST", `/${DECLARED_SECRET}/claim-token-rotations`));
    const res = await fetch(`${service.url}/api/v1/sites/${DECLARED_SECRET}/secret`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-claim-token": claim_token },
      body: JSON.stringify({ rotate: true }),
    });
    assert.equal(res.status, 409);
    assert.equal(((await res.json()) as { code: string }).code, "config-declared");
  });

  test("DELETE …/secret refuses a secret declared in [sites] and unknown sites", async () => {
    await expectProblem(await op("DELETE", `/${DECLARED_SECRET}/secret`), 409, "config-declared");
    await expectProblem(await op("DELETE", `/${uniqueSiteId("unknown")}/secret`), 404, "site-not-found");
    assert.equal((await listed(DECLARED_SECRET)).secret_source, "config");
  });
});

describe("claim-token rotation", () => {
  for (const form of ["claim-token-rotations", "claim-token/rotate"]) {
    test(`POST …/${form} replaces the stored hash; the token is shown once`, async () => {
      const site = await apiSite();
      const hashOf = async () =>
        (await service.services.db.site.findUniqueOrThrow({ where: { id: site } })).claimTokenHash;
      const before = await hashOf();
      const { site_id, claim_token } = await ok(await op("POST", `/${site}/${form}`));
      assert.equal(site_id, site);
      const after = await hashOf();
      assert.equal(after, hashClaimToken(claim_token));
      assert.notEqual(after, before);
      const again = (await ok(await op("POST", `/${site}/${form}`))).claim_token;
      assert.notEqual(again, claim_token);
      assert.equal(await hashOf(), hashClaimToken(again));
    });

    test(`POST …/${form} refuses retiring and unknown sites`, async () => {
      const site = await apiSite();
      await service.services.db.site.update({
        where: { id: site },
        data: { status: "retiring", claimTokenHash: null },
      });
      await expectProblem(await op("POST", `/${site}/${form}`), 410, "site-retired");
      assert.equal((await service.services.db.site.findUniqueOrThrow({ where: { id: site } })).claimTokenHash, null);
      await expectProblem(await op("POST", `/${uniqueSiteId("unknown")}/${form}`), 404, "site-not-found");
    });
  }
});

describe("config snippets", () => {
  /** The snippet read by the service's own configuration loader. */
  const load = (toml: string) =>
    buildConfig({ ...testConfigDocument(), sites: parseConfigText(toml, "snippet").sites as Record<string, unknown> })
      .sites;

  test("round-trips through the configuration loader", async () => {
    const site = await apiSite([TEST_ORIGIN, "http://localhost:3000"]);
    const { secret } = await ok(await op("POST", `/${site}/secret-rotations`));
    const snippet = await ok(await op("GET", `/${site}/config-snippet`));
    assert.equal(snippet.site_id, site);
    assert.match(snippet.toml, new RegExp(`^\\[sites\\.${site}\\]`));
    assert.deepEqual(load(snippet.toml), [
      { siteId: site, origins: ["http://localhost:3000", TEST_ORIGIN], secret, pageUrlPattern: null, webhooks: [] },
    ]);

    const plain = await apiSite([]);
    assert.deepEqual(load((await ok(await op("GET", `/${plain}/config-snippet`))).toml), [
      { siteId: plain, origins: [], secret: null, pageUrlPattern: null, webhooks: [] },
    ]);
    assert.deepEqual(load((await ok(await op("GET", `/${DECLARED_SECRET}/config-snippet`))).toml), [
      { siteId: DECLARED_SECRET, origins: [TEST_ORIGIN], secret: CONFIG_SECRET, pageUrlPattern: null, webhooks: [] },
    ]);
  });

  test("an unknown site is 404", async () => {
    await expectProblem(await op("GET", `/${uniqueSiteId("unknown")}/config-snippet`), 404, "site-not-found");
  });
});
