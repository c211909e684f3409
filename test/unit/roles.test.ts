import { test } from "node:test";
import assert from "node:assert/strict";
import { MatrixNames } from "../../src/matrix/names.ts";
import { deriveRosters, inServiceNamespace } from "../../src/features/rooms/roles.ts";

const excluded = inServiceNamespace(new MatrixNames("_service_", "example.org"));

test("levels map to roles: admin ≥ 100, manager 75-99, moderator 50-74, nothing below", () => {
  const rosters = deriveRosters(
    {
      users: {
        "@a:x": 100,
        "@b:x": 150,
        "@c:x": 99,
        "@d:x": 75,
        "@e:x": 74,
        "@f:x": 50,
        "@g:x": 49,
        "@h:x": 0,
        "@i:x": -10,
      },
    },
    excluded,
  );
  assert.deepEqual(rosters, {
    admins: [
      { userId: "@b:x", level: 150 },
      { userId: "@a:x", level: 100 },
    ],
    managers: [
      { userId: "@c:x", level: 99 },
      { userId: "@d:x", level: 75 },
    ],
    moderators: [
      { userId: "@e:x", level: 74 },
      { userId: "@f:x", level: 50 },
    ],
  });
});

test("rosters are sorted by level descending, then user id by code point", () => {
  const rosters = deriveRosters({ users: { "@zed:x": 50, "@Bob:x": 50, "@amy:x": 50, "@top:x": 60 } }, excluded);
  assert.deepEqual(
    rosters.moderators.map((e) => e.userId),
    ["@top:x", "@Bob:x", "@amy:x", "@zed:x"],
  );
});

test("the service's own users (bot, visitors) are never listed; lookalikes elsewhere are", () => {
  const rosters = deriveRosters(
    {
      users: {
        "@_service_bot:example.org": 150,
        "@_service_v_0123:example.org": 50,
        "@_service_bot:other.org": 100,
        "@owner:example.org": 100,
      },
    },
    excluded,
  );
  assert.deepEqual(
    rosters.admins.map((e) => e.userId),
    ["@_service_bot:other.org", "@owner:example.org"],
  );
  assert.deepEqual(rosters.moderators, []);
});

test("string levels of older room versions count; other values do not", () => {
  const rosters = deriveRosters(
    { users: { "@s:x": "75", "@t:x": " 50 ", "@f:x": 50.5, "@n:x": null, "@o:x": { level: 100 }, "@w:x": "high" } },
    excluded,
  );
  assert.deepEqual(rosters, {
    admins: [],
    managers: [{ userId: "@s:x", level: 75 }],
    moderators: [{ userId: "@t:x", level: 50 }],
  });
});

test("missing or malformed power levels give empty rosters", () => {
  for (const content of [undefined, null, {}, { users: null }, { users: [] }, "x", { users_default: 100 }]) {
    assert.deepEqual(
      deriveRosters(content, excluded),
      { admins: [], managers: [], moderators: [] },
      JSON.stringify(content),
    );
  }
});
