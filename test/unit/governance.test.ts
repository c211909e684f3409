import { test } from "node:test";
import assert from "node:assert/strict";
import { levelsInRoom, withUserLevels, type AppliedRole } from "../../src/features/governance/levels.ts";
import {
  claimIdOf,
  hashVerifyToken,
  issueVerifyToken,
  verifyTokenMatches,
} from "../../src/features/governance/verify-tokens.ts";

const role = (userId: string, kind: AppliedRole["role"], pageSlug = ""): AppliedRole => ({
  userId,
  role: kind,
  pageSlug,
  level: { admin: 100, manager: 75, moderator: 50 }[kind],
});

test("the Space carries site roles; a page's room the site roles and that page's moderators; the highest level wins", () => {
  const roles = [
    role("@a:x", "admin"),
    role("@m:x", "manager"),
    role("@d:x", "moderator", "one"),
    role("@e:x", "moderator", "two"),
    role("@m:x", "moderator", "one"),
  ];
  assert.deepEqual(
    [...levelsInRoom(roles, null)],
    [
      ["@a:x", 100],
      ["@m:x", 75],
    ],
  );
  assert.deepEqual(
    [...levelsInRoom(roles, "one")],
    [
      ["@a:x", 100],
      ["@m:x", 75],
      ["@d:x", 50],
    ],
  );
  assert.deepEqual(
    [...levelsInRoom(roles, "two")],
    [
      ["@a:x", 100],
      ["@m:x", 75],
      ["@e:x", 50],
    ],
  );
  assert.deepEqual([...levelsInRoom([], "one")], []);
});

test("power levels content: levels set and removed, everything else kept, the input untouched", () => {
  const content = { ban: 50, users: { "@keep:x": 10, "@gone:x": 75 }, events: { "m.room.tombstone": 150 } };
  const changed = withUserLevels(
    content,
    new Map([
      ["@gone:x", null],
      ["@new:x", 100],
    ]),
  );
  assert.deepEqual(changed, { ban: 50, users: { "@keep:x": 10, "@new:x": 100 }, events: { "m.room.tombstone": 150 } });
  assert.deepEqual(content.users, { "@keep:x": 10, "@gone:x": 75 });
  assert.deepEqual(withUserLevels({}, new Map([["@a:x", 50]])), { users: { "@a:x": 50 } });
  assert.deepEqual(withUserLevels({ users: "junk" }, new Map([["@a:x", null]])), { users: {} });
});

test("verify tokens: the claim id they name, only a hash kept, matched in full", () => {
  const { claimId, token, tokenHash } = issueVerifyToken();
  assert.match(token, /^[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/);
  assert.equal(claimIdOf(token), claimId);
  assert.equal(tokenHash, hashVerifyToken(token));
  assert.ok(!tokenHash.includes(token.split(".")[1]!));
  assert.equal(verifyTokenMatches(token, tokenHash), true);
  assert.equal(verifyTokenMatches(`${token}x`, tokenHash), false);
  assert.equal(verifyTokenMatches(token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"), tokenHash), false);
  assert.equal(verifyTokenMatches(token, "not-hex"), false);
  for (const bad of [
    "",
    "abc",
    `${claimId}.`,
    `${claimId}.${"a".repeat(42)}`,
    `${claimId.toUpperCase()}.${token.split(".")[1]}`,
    ` ${token}`,
  ])
    assert.equal(claimIdOf(bad), null, bad);
  assert.notEqual(issueVerifyToken().token, token);
});
