// Public reads of room info and role rosters, on real SQLite and real PostgreSQL against the
// real test Synapse: state set directly in Matrix (as a Matrix client would) shows up in them.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { MatrixNames } from "../../src/matrix/names.ts";
import { eventually, PROVIDERS, serviceFor, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { getState, matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import { TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";

const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const enc = encodeURIComponent;

/** Sets users' levels in a room's power levels, as the bot (the room's creator). */
async function setLevels(roomId: string, levels: Record<string, number>): Promise<void> {
  const current = await getState(roomId, "m.room.power_levels");
  await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.power_levels/`, undefined, {
    ...current,
    users: { ...current.users, ...levels },
  });
}

for (const provider of PROVIDERS) {
  describe(`room reads on ${provider}`, () => {
    const siteId = uniqueSiteId("reads");
    const page = "roles-page";
    const pagePath = `/api/v1/sites/${siteId}/pages/${page}`;
    const running = serviceFor(provider, { sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
    let service: TestService;

    const get = async (path: string) => {
      const res = await fetch(`${service.url}${path}`);
      return { status: res.status, body: (await res.json()) as any };
    };
    /** The body of a 200, or null (for eventually) while `ready` does not hold. */
    const when = async (path: string, ready: (body: any) => boolean) => {
      const res = await get(path);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return ready(res.body) ? res.body : null;
    };

    before(() => (service = running.service));

    test("unknown sites, pages without a room and malformed ids", async () => {
      for (const suffix of ["room", "moderators", "roles"]) {
        const missing = await get(`${pagePath}/${suffix}`);
        assert.equal(missing.status, 404);
        assert.equal(missing.body.code, "room-not-found");
        assert.equal(
          (await get(`/api/v1/sites/${uniqueSiteId("nope")}/pages/${page}/${suffix}`)).body.code,
          "site-not-found",
        );
        const bad = await get(`/api/v1/sites/${siteId}/pages/Not_A_Slug/${suffix}`);
        assert.equal(bad.status, 400);
        assert.equal(bad.body.code, "validation-error");
      }
      assert.equal((await get(`/api/v1/sites/${uniqueSiteId("nope")}/roles`)).body.code, "site-not-found");
      assert.equal((await get(`/api/v1/sites/Bad!/roles`)).status, 400);
      assert.deepEqual(
        await get(`/api/v1/sites/${siteId}/roles`),
        { status: 200, body: { admins: [], managers: [] } },
        "no Space yet: empty rosters",
      );
    });

    test("room info and rosters follow the room's and the Space's state in Matrix", async () => {
      const visitor = new Visitor(service.url, TEST_ORIGIN);
      const res = await visitor.post(`${pagePath}/comments`, await visitor.commentBody(siteId, page, "First"), {
        "idempotency-key": "first",
      });
      assert.equal(res.status, 202, await res.text());
      const roomId = await eventually(
        async () => (await get(`${pagePath}/room`)).body.room_id,
        30_000,
        "the page room",
      );
      assert.equal(roomId, await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}_${page}:${TEST_SERVER_NAME}`));
      const spaceId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}:${TEST_SERVER_NAME}`);

      const moderator = await registerMatrixUser(`mod${Date.now().toString(36)}${provider}`);
      const manager = await registerMatrixUser(`mgr${Date.now().toString(36)}${provider}`);
      await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, moderator.token, {});
      await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.name/`, undefined, {
        name: "Comments on the first post",
      });
      await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.topic/`, undefined, {
        topic: "Be kind",
      });
      const visitorId = names.visitorUserId(siteId, visitor.publicKey);
      await setLevels(roomId, { [moderator.userId]: 50, [visitorId]: 50 });
      await setLevels(spaceId, { [moderator.userId]: 100, [manager.userId]: 75 });

      const info = await eventually(
        () => when(`${pagePath}/room`, (b) => b.topic === "Be kind" && b.member_count === 2),
        30_000,
        "topic and members",
      );
      assert.equal(info.name, "Comments on the first post");
      assert.equal(info.avatar_url, null);
      assert.equal(info.avatar_thumbnail_url, null);
      const system = (type: string, key: string) =>
        info.system_messages.filter((m: any) => m.event_type === type && m.state_key === key);
      assert.deepEqual(system("m.room.name", "").at(-1).content_json, { name: "Comments on the first post" });
      const [topic] = system("m.room.topic", "");
      assert.deepEqual(topic.content_json, { topic: "Be kind" });
      assert.equal(topic.sender, names.botUserId);
      assert.equal(typeof topic.origin_server_ts, "number");
      assert.match(topic.event_id, /^\$/);
      assert.equal(system("m.room.member", moderator.userId)[0].content_json.membership, "join");
      const times = info.system_messages.map((m: any) => m.origin_server_ts);
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        "oldest first",
      );

      const expected = { room_id: roomId, moderators: [{ user_id: moderator.userId, level: 50 }] };
      assert.deepEqual(
        await eventually(() => when(`${pagePath}/moderators`, (b) => b.moderators.length > 0), 30_000, "moderators"),
        expected,
      );
      assert.deepEqual((await get(`${pagePath}/roles`)).body, {
        site_id: siteId,
        page_slug: page,
        ...expected,
        admins: [],
        managers: [],
      });
      assert.deepEqual(
        await eventually(
          () => when(`/api/v1/sites/${siteId}/roles`, (b) => b.managers.length > 0),
          30_000,
          "site roles",
        ),
        {
          admins: [{ user_id: moderator.userId, level: 100 }],
          managers: [{ user_id: manager.userId, level: 75 }],
        },
      );

      // A level changed again by hand in Matrix: the newest power levels win.
      await setLevels(roomId, { [moderator.userId]: 80 });
      const roles = await eventually(
        () => when(`${pagePath}/roles`, (b) => b.managers.length > 0),
        30_000,
        "the promotion",
      );
      assert.deepEqual([roles.managers, roles.moderators], [[{ user_id: moderator.userId, level: 80 }], []]);
    });
  });
}
