// Site and page retirement on real SQLite and PostgreSQL against the real test Synapse: writes
// stop at once, then the background pass renames the rooms, removes the aliases, makes the
// service's users leave and clears the local rows, so the id or slug starts fresh; a pass cut
// short completes after a restart; config-declared sites are refused; operator and alternate forms.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { apiRoutes } from "../../src/app/api-document.ts";
import { hashClaimToken } from "../../src/features/sites/sites.ts";
import { Homeserver } from "../../src/matrix/homeserver.ts";
import { MatrixNames } from "../../src/matrix/names.ts";
import { RetirementPass } from "../../src/features/retirement/pass.ts";
import {
  eventually,
  freshDatabase,
  PROVIDERS,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import {
  TEST_AS_TOKEN,
  TEST_HOMESERVER_URL,
  TEST_OPERATOR_TOKEN,
  TEST_SERVER_NAME,
  TEST_NAMESPACE_PREFIX,
} from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { call } from "../support/calls.ts";
import { statusAndCode } from "../support/problems.ts";
import { listComments, whenListed } from "../support/reads.ts";
import { registerSite } from "../support/sites.ts";

const enc = encodeURIComponent;
const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const JSON_TYPE = { "content-type": "application/json" };
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const claim = (token: string) => ({ "x-service-claim-token": token });
const pageAlias = (site: string, page: string) => names.alias(names.roomAliasLocalpart(site, page));
const spaceAlias = (site: string) => names.alias(names.spaceAliasLocalpart(site));

const postComment = async (visitor: Visitor, site: string, page: string, text: string) =>
  visitor.post(`/api/v1/sites/${site}/pages/${page}/comments`, await visitor.commentBody(site, page, text), {
    "idempotency-key": randomUUID(),
  });

/** A registered site writable from TEST_ORIGIN; its claim token. */
const siteToken = async (service: TestService, siteId: string) =>
  (await registerSite(service, siteId, [TEST_ORIGIN])).claimToken;

/** Posts a comment and waits until it is listed; returns the listed message. */
async function comment(
  service: TestService,
  visitor: Visitor,
  site: string,
  page: string,
  text: string,
): Promise<{ event_id: string; room_id: string }> {
  return whenListed(
    await postComment(visitor, site, page, text),
    async () => (await listComments(service, site, page)).data,
    `comment "${text}"`,
  );
}

/** An ordinary Matrix account in the rooms, to look at them after the service's bot has left. */
class Watcher {
  private constructor(
    readonly userId: string,
    private readonly token: string,
  ) {}

  static async register(): Promise<Watcher> {
    const { userId, token } = await registerMatrixUser(`watcher${randomBytes(4).toString("hex")}`);
    return new Watcher(userId, token);
  }

  async join(roomId: string): Promise<void> {
    await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, this.token, {});
  }

  state(roomId: string, type: string, stateKey = ""): Promise<any> {
    return matrixRequest(
      "GET",
      `/_matrix/client/v3/rooms/${enc(roomId)}/state/${enc(type)}/${enc(stateKey)}`,
      this.token,
    );
  }

  async membership(roomId: string, userId: string): Promise<string> {
    return (await this.state(roomId, "m.room.member", userId).catch(() => ({ membership: "none" }))).membership;
  }

  async joined(roomId: string): Promise<string[]> {
    return Object.keys(
      (await matrixRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/joined_members`, this.token)).joined,
    ).sort();
  }
}

/** What a retired room looks like from Matrix: renamed, alias gone, only non-service users left. */
async function assertRetiredInMatrix(
  watcher: Watcher,
  roomId: string,
  name: string,
  alias: string,
  visitors: string[],
): Promise<void> {
  assert.equal((await watcher.state(roomId, "m.room.name")).name, name);
  await assert.rejects(resolveAlias(alias), /M_NOT_FOUND/, `${alias} is removed`);
  assert.equal(await watcher.membership(roomId, names.botUserId), "leave");
  for (const visitor of visitors) assert.equal(await watcher.membership(roomId, visitor), "leave");
  assert.deepEqual(await watcher.joined(roomId), [watcher.userId]);
}

/** No local row of the rooms is left. */
async function assertCleared(service: TestService, roomIds: string[]): Promise<void> {
  const { db } = service.services;
  const where = { roomId: { in: roomIds } };
  const counts = {
    rooms: await db.room.count({ where }),
    comments: await db.comment.count({ where }),
    members: await db.roomMember.count({ where }),
    state: await db.roomState.count({ where }),
    events: await db.matrixEvent.count({ where }),
  };
  assert.deepEqual(counts, { rooms: 0, comments: 0, members: 0, state: 0, events: 0 });
}

for (const provider of PROVIDERS) {
  describe(`retirement on ${provider}`, () => {
    const DECLARED = uniqueSiteId("declared");
    let service: TestService;
    let drop: () => Promise<void>;
    let watcher: Watcher;

    before(async () => {
      const database = await freshDatabase(provider);
      drop = database.drop;
      service = await startTestService({
        databaseUrl: database.url,
        sites: { [DECLARED]: { origins: [TEST_ORIGIN] } },
      });
      watcher = await Watcher.register();
    });
    after(async () => {
      await service?.stop();
      await drop?.();
    });

    test("a page: writes refused at once, then renamed, alias removed, members gone, read model cleared, slug fresh", async () => {
      const site = uniqueSiteId("ret-page");
      const token = await siteToken(service, site);
      const [ada, bob] = [new Visitor(service.url, TEST_ORIGIN), new Visitor(service.url, TEST_ORIGIN)];
      const first = await comment(service, ada, site, "doomed", "first");
      await comment(service, bob, site, "doomed", "second");
      await comment(service, ada, site, "kept", "elsewhere");
      const roomId = first.room_id;
      const spaceId = await resolveAlias(spaceAlias(site));
      await watcher.join(spaceId);
      await watcher.join(roomId);
      const visitors = [names.visitorUserId(site, ada.publicKey), names.visitorUserId(site, bob.publicKey)];

      const path = `/api/v1/sites/${site}/pages/doomed/retirement`;
      assert.deepEqual(await call(service, "GET", path), {
        status: 200,
        body: { target_type: "page", target_id: `${site}/doomed`, state: "active" },
      });
      const retired = await call(service, "POST", path, claim(token));
      assert.deepEqual(retired, {
        status: 202,
        body: { target_type: "page", target_id: `${site}/doomed`, state: "retiring" },
      });

      const refused = await postComment(ada, site, "doomed", "too late");
      assert.equal(refused.status, 410);
      assert.equal(((await refused.json()) as { code: string }).code, "page-retired");
      assert.equal(
        await statusAndCode(call(service, "POST", path, claim(token))),
        "404 room-not-found",
        "already retired",
      );
      assert.equal((await postComment(ada, site, "kept", "still open")).status, 202, "other pages take writes");

      await eventually(
        async () => (await call(service, "GET", path)).status === 404,
        30_000,
        "the page retirement to complete",
      );
      assert.equal(await statusAndCode(call(service, "GET", path)), "404 room-not-found");
      await assertRetiredInMatrix(watcher, roomId, `[retired] ${site}/doomed`, pageAlias(site, "doomed"), visitors);
      assert.deepEqual(await watcher.state(spaceId, "m.space.child", roomId), {}, "unlinked from the Space");
      await assertCleared(service, [roomId]);
      assert.deepEqual((await listComments(service, site, "doomed")).data, []);
      assert.equal(await service.services.db.retirement.count(), 0);

      // The slug starts fresh: a new room under the same alias, in the same Space.
      const again = await comment(service, ada, site, "doomed", "a fresh start");
      assert.notEqual(again.room_id, roomId);
      assert.equal(await resolveAlias(pageAlias(site, "doomed")), again.room_id);
      assert.equal(await resolveAlias(spaceAlias(site)), spaceId);
    });

    test("a site: writes and the claim token refused at once, then Space and rooms retired, rows cleared, id registrable again", async () => {
      const site = uniqueSiteId("ret-site");
      const token = await siteToken(service, site);
      const ada = new Visitor(service.url, TEST_ORIGIN);
      const a = await comment(service, ada, site, "a", "on a");
      const b = await comment(service, ada, site, "b", "on b");
      const spaceId = await resolveAlias(spaceAlias(site));
      for (const roomId of [spaceId, a.room_id, b.room_id]) await watcher.join(roomId);
      const visitor = names.visitorUserId(site, ada.publicKey);
      const webhooks = `/api/v1/sites/${site}/webhooks`;
      const hook = { url: "https://hooks.example/retired" };
      assert.equal((await call(service, "POST", webhooks, claim(token), hook)).status, 201);

      const path = `/api/v1/sites/${site}/retirement`;
      assert.deepEqual(await call(service, "GET", path), {
        status: 200,
        body: { target_type: "site", target_id: site, state: "active" },
      });
      assert.deepEqual(await call(service, "POST", path, claim(token)), {
        status: 202,
        body: { target_type: "site", target_id: site, state: "retiring" },
      });
      assert.equal(
        await statusAndCode(call(service, "POST", path, claim(token))),
        "403 invalid-claim-token",
        "the claim token is invalidated",
      );
      const refused = await postComment(ada, site, "a", "too late");
      assert.equal(refused.status, 410);
      assert.equal(((await refused.json()) as { code: string }).code, "site-retired");
      assert.equal(
        await statusAndCode(call(service, "POST", `/api/v1/operator/sites/${site}/webhooks`, OPERATOR, hook)),
        "410 site-retired",
        "no new webhook endpoint, not even the operator's",
      );

      await eventually(
        async () => (await call(service, "GET", path)).status === 404,
        30_000,
        "the site retirement to complete",
      );
      assert.equal(await statusAndCode(call(service, "GET", path)), "404 site-not-found");
      await assertRetiredInMatrix(watcher, a.room_id, `[retired] ${site}/a`, pageAlias(site, "a"), [visitor]);
      await assertRetiredInMatrix(watcher, b.room_id, `[retired] ${site}/b`, pageAlias(site, "b"), [visitor]);
      await assertRetiredInMatrix(watcher, spaceId, `[retired] ${site}`, spaceAlias(site), []);
      await assertCleared(service, [spaceId, a.room_id, b.room_id]);
      assert.equal(
        await statusAndCode(call(service, "QUERY", `/api/v1/sites/${site}/pages/a/comments`, {}, {})),
        "404 site-not-found",
      );
      const { db } = service.services;
      assert.equal(await db.site.count({ where: { id: site } }), 0);
      assert.equal(await db.siteOrigin.count({ where: { siteId: site } }), 0);
      assert.equal(await db.submission.count({ where: { siteId: site } }), 0);
      assert.equal(await db.liveEvent.count({ where: { siteId: site } }), 0);
      assert.equal(await db.webhookEndpoint.count({ where: { siteId: site } }), 0);

      // The id can be registered again and starts fresh: a new Space and room under the same
      // aliases, and none of the old owner's webhooks (its comments reach nobody's endpoint).
      const newToken = await siteToken(service, site);
      assert.deepEqual(await call(service, "GET", webhooks, claim(newToken)), { status: 200, body: { data: [] } });
      const fresh = await comment(service, ada, site, "a", "back again");
      assert.equal(await db.webhookDelivery.count({ where: { siteId: site } }), 0);
      assert.notEqual(fresh.room_id, a.room_id);
      assert.notEqual(await resolveAlias(spaceAlias(site)), spaceId);
    });

    test("a config-declared site cannot be retired, by its owner or the operator", async () => {
      // As an operator claim-token rotation would give it one.
      await service.services.db.site.update({
        where: { id: DECLARED },
        data: { claimTokenHash: hashClaimToken("declared-token") },
      });
      const owner = claim("declared-token");
      assert.equal(
        await statusAndCode(call(service, "POST", `/api/v1/sites/${DECLARED}/retirement`, owner)),
        "409 config-declared",
      );
      assert.equal(
        await statusAndCode(call(service, "DELETE", `/api/v1/sites/${DECLARED}`, owner)),
        "409 config-declared",
      );
      assert.equal(
        await statusAndCode(call(service, "POST", `/api/v1/operator/sites/${DECLARED}/retirement`, OPERATOR)),
        "409 config-declared",
      );
      assert.equal(
        await statusAndCode(call(service, "DELETE", `/api/v1/operator/sites/${DECLARED}`, OPERATOR)),
        "409 config-declared",
      );
      assert.equal((await call(service, "GET", `/api/v1/sites/${DECLARED}/retirement`)).body.state, "active");
    });

    test("operator mirrors, alternate forms and unknown targets", async () => {
      const site = uniqueSiteId("ret-op");
      const token = await siteToken(service, site);
      const ada = new Visitor(service.url, TEST_ORIGIN);
      const [p1, p2, p3] = [
        await comment(service, ada, site, "p1", "one"),
        await comment(service, ada, site, "p2", "two"),
        await comment(service, ada, site, "p3", "three"),
      ];
      const room = (roomId: string) => `/api/v1/operator/rooms/${enc(roomId)}`;

      assert.deepEqual(await call(service, "GET", `${room(p1.room_id)}/retirement`, OPERATOR), {
        status: 200,
        body: { target_type: "room", target_id: p1.room_id, state: "active" },
      });
      assert.equal(
        await statusAndCode(call(service, "POST", `${room(p1.room_id)}/retirement`)),
        "403 invalid-operator-token",
      );
      assert.deepEqual(await call(service, "POST", `${room(p1.room_id)}/retirement`, OPERATOR), {
        status: 202,
        body: { target_type: "room", target_id: p1.room_id, state: "retiring" },
      });
      assert.equal(
        await statusAndCode(call(service, "POST", `${room(p1.room_id)}/retirement`, OPERATOR)),
        "404 room-not-found",
      );
      assert.equal(await statusAndCode(call(service, "DELETE", room(p1.room_id), OPERATOR)), "404 room-not-found");
      assert.deepEqual(await call(service, "DELETE", room(p2.room_id), OPERATOR), {
        status: 200,
        body: { room_id: p2.room_id, status: "retiring" },
      });
      assert.deepEqual(await call(service, "DELETE", `/api/v1/sites/${site}/pages/p3`, claim(token)), {
        status: 200,
        body: { site_id: site, page_slug: "p3", status: "retiring" },
      });
      assert.equal(
        await statusAndCode(call(service, "DELETE", `/api/v1/sites/${site}/pages/p3`, claim(token))),
        "404 room-not-found",
      );
      assert.equal((await call(service, "GET", `/api/v1/sites/${site}/pages/p3/retirement`)).body.state, "retiring");
      for (const { room_id } of [p1, p2, p3]) {
        await eventually(
          async () => (await call(service, "GET", `${room(room_id)}/retirement`, OPERATOR)).status === 404,
          30_000,
          `room ${room_id} retired`,
        );
      }
      assert.equal(
        await statusAndCode(call(service, "GET", `${room(p1.room_id)}/retirement`, OPERATOR)),
        "404 room-not-found",
      );
      await assertCleared(service, [p1.room_id, p2.room_id, p3.room_id]);

      // The site, by the operator (repeating is harmless while it retires).
      const sitePath = `/api/v1/operator/sites/${site}`;
      assert.equal((await call(service, "GET", `${sitePath}/retirement`, OPERATOR)).body.state, "active");
      assert.deepEqual(await call(service, "POST", `${sitePath}/retirement`, OPERATOR), {
        status: 202,
        body: { target_type: "site", target_id: site, state: "retiring" },
      });
      assert.deepEqual(await call(service, "DELETE", sitePath, OPERATOR), {
        status: 200,
        body: { target_type: "site", target_id: site, state: "retiring" },
      });
      assert.equal((await call(service, "GET", `${sitePath}/retirement`, OPERATOR)).body.state, "retiring");
      await eventually(
        async () => (await call(service, "GET", `${sitePath}/retirement`, OPERATOR)).status === 404,
        30_000,
        "the site retired",
      );
      assert.equal(await statusAndCode(call(service, "GET", `${sitePath}/retirement`, OPERATOR)), "404 site-not-found");
      assert.equal(
        await statusAndCode(call(service, "POST", `${sitePath}/retirement`, OPERATOR)),
        "404 site-not-found",
      );
      assert.equal(await statusAndCode(call(service, "DELETE", sitePath, OPERATOR)), "404 site-not-found");

      // The owner's alternate site form; a site that never had a comment retires as well.
      const other = uniqueSiteId("ret-alt");
      const otherToken = await siteToken(service, other);
      assert.equal(
        await statusAndCode(call(service, "GET", `/api/v1/sites/${other}/pages/none/retirement`)),
        "404 room-not-found",
      );
      assert.equal(
        await statusAndCode(call(service, "POST", `/api/v1/sites/${other}/pages/none/retirement`, claim(otherToken))),
        "404 room-not-found",
      );
      assert.deepEqual(await call(service, "DELETE", `/api/v1/sites/${other}`, claim(otherToken)), {
        status: 200,
        body: { target_type: "site", target_id: other, state: "retiring" },
      });
      await eventually(
        async () => (await call(service, "GET", `/api/v1/sites/${other}/retirement`)).status === 404,
        30_000,
        "the other site retired",
      );
      assert.equal(
        await statusAndCode(call(service, "GET", `/api/v1/sites/${other}/pages/none/retirement`)),
        "404 site-not-found",
      );
      assert.equal(
        await statusAndCode(call(service, "GET", `${room("!unknown:localhost")}/retirement`, OPERATOR)),
        "404 room-not-found",
      );
      assert.equal(
        await statusAndCode(call(service, "DELETE", room("!unknown:localhost"), OPERATOR)),
        "404 room-not-found",
      );
    });
  });

  describe(`retirement after a restart on ${provider}`, () => {
    let databaseUrl: string;
    let drop: () => Promise<void>;
    let running: TestService | null = null;
    const start = async (worker: boolean) => {
      running = await startTestService({ databaseUrl, worker });
      // fetch reuses connections kept alive to the instance stopped on this port; each fails
      // once ("other side closed"), so spend them before the test's own requests.
      for (
        let i = 0;
        i < 5 &&
        !(await fetch(`${running.url}/health`).then(
          (r) => r.ok,
          () => false,
        ));
        i++
      );
      return running;
    };
    const stop = async () => {
      await running?.stop();
      running = null;
    };

    before(async () => {
      ({ url: databaseUrl, drop } = await freshDatabase(provider));
    });
    after(async () => {
      await stop();
      await drop?.();
    });

    test("a pass cut short after the first steps is recorded, and a new instance on the same database completes it", async () => {
      const site = uniqueSiteId("ret-restart");
      let service = await start(true);
      const token = await siteToken(service, site);
      const ada = new Visitor(service.url, TEST_ORIGIN);
      const { room_id: roomId } = await comment(service, ada, site, "page", "before the crash");
      const watcher = await Watcher.register();
      await watcher.join(roomId);
      await stop();

      // An instance without the background pass takes the request.
      service = await start(false);
      assert.equal(
        (await call(service, "POST", `/api/v1/sites/${site}/pages/page/retirement`, claim(token))).status,
        202,
      );
      await assertEveryWriteRefused(service, site, "page");

      // The pass runs until the first leave, which "crashes".
      class CrashingHomeserver extends Homeserver {
        override async leaveRoom(): Promise<void> {
          throw Object.assign(new Error("simulated crash"), {
            statusCode: 500,
            errcode: "M_UNKNOWN",
            error: "simulated crash",
          });
        }
      }
      await new RetirementPass(
        service.services.db,
        new CrashingHomeserver(TEST_HOMESERVER_URL, TEST_AS_TOKEN, names, 30_000),
        () => {},
      ).runAll();
      const row = await service.services.db.retirement.findFirstOrThrow({ where: { siteId: site } });
      assert.equal(row.attempts, 1);
      assert.match(row.lastError ?? "", /M_UNKNOWN simulated crash/);
      assert.equal((await watcher.state(roomId, "m.room.name")).name, `[retired] ${site}/page`);
      await assert.rejects(resolveAlias(pageAlias(site, "page")), /M_NOT_FOUND/);
      assert.equal(await watcher.membership(roomId, names.botUserId), "join");
      assert.equal((await call(service, "GET", `/api/v1/sites/${site}/pages/page/retirement`)).body.state, "retiring");
      await stop();

      // A new instance picks the row up (after its backoff) and repeats the steps already done harmlessly.
      service = await start(true);
      await eventually(
        async () => (await call(service, "GET", `/api/v1/sites/${site}/pages/page/retirement`)).status === 404,
        40_000,
        "the retirement to complete",
      );
      await assertRetiredInMatrix(watcher, roomId, `[retired] ${site}/page`, pageAlias(site, "page"), [
        names.visitorUserId(site, ada.publicKey),
      ]);
      await assertCleared(service, [roomId]);
    });
  });
}

/**
 * Every visitor-write route of the page answers 410 page-retired, before anything else is
 * checked: a schema-valid body is enough.
 */
async function assertEveryWriteRefused(service: TestService, site: string, page: string): Promise<void> {
  const writes = apiRoutes.filter(
    (r) => (r.auth === "author-proof" || r.auth === "site-write") && r.path.includes("{page_slug}"),
  );
  assert.ok(writes.length > 0);
  for (const route of writes) {
    const path = route.path
      .replace("{site_id}", site)
      .replace("{page_slug}", page)
      .replace(/\{[a-z_]+\}/g, enc("$x"));
    // A parameter whose schema gives an example (an upload's mime) takes it: "$x" would be refused before the page is looked at.
    const query = (route.query?.required ?? [])
      .map((name) => `${name}=${enc((route.query!.properties[name]!.examples as string[] | undefined)?.[0] ?? "$x")}`)
      .join("&");
    const res = await fetch(`${service.url}${path}${query ? `?${query}` : ""}`, {
      method: route.method,
      headers: {
        ...JSON_TYPE,
        origin: TEST_ORIGIN,
        ...(route.idempotencyKey ? { "idempotency-key": randomUUID() } : {}),
      },
      body: JSON.stringify(sample(route.body?.schema ?? {})),
    });
    const body = (await res.json()) as { code: string };
    assert.equal(`${res.status} ${body.code}`, "410 page-retired", `${route.method} ${route.path}`);
  }
}

/** A value of the schema's required fields, just enough to pass validation. */
function sample(schema: Record<string, any>): Record<string, unknown> {
  const value = (field: Record<string, any>): unknown => {
    const types = [field.type].flat();
    if (types.includes("array")) return Array.from({ length: field.minItems ?? 1 }, () => "x");
    if (types.includes("integer")) return 1;
    return "x";
  };
  return Object.fromEntries((schema.required ?? []).map((name: string) => [name, value(schema.properties[name])]));
}
