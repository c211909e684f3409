import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DomainError } from "../../src/core/errors.ts";
import {
  decodeCommentCursor,
  decodePageCursor,
  encodeCommentCursor,
  encodePageCursor,
} from "../../src/features/dashboard/cursors.ts";
import { pageRoleOf, pageRolesOf, roleAt, siteRoleOf, userLevel } from "../../src/features/dashboard/governor-roles.ts";
import { allowedHomeservers } from "../../src/features/dashboard/openid.ts";
import {
  clearedSessionCookie,
  servedOverHttps,
  sessionCookieHeader,
} from "../../src/features/dashboard/session-cookie.ts";
import { sameOrigin, sessionCookie } from "../../src/features/dashboard/access.ts";

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof DomainError ? `${err.status} ${err.code}` : String(err);
  }
  return "no error";
};

describe("governor roles from power levels", () => {
  const alice = "@alice:example.org";
  const mo = "@mo:example.org";
  const rooms = [
    { pageSlug: null, content: { users: { [alice]: 100 }, users_default: 0 } },
    { pageSlug: "a", content: { users: { [alice]: 100, [mo]: 50 } } },
    { pageSlug: "b", content: { users: { [mo]: "75" }, users_default: 0 } },
  ];

  test("a user's level: their entry, else users_default, else 0; decimal strings count", () => {
    assert.equal(userLevel({ users: { [mo]: 60 } }, mo), 60);
    assert.equal(userLevel({ users: {}, users_default: 10 }, mo), 10);
    assert.equal(userLevel({}, mo), 0);
    assert.equal(userLevel("not levels", mo), 0);
    assert.equal(userLevel({ users: { [mo]: "75" } }, mo), 75);
    assert.equal(userLevel({ users: { [mo]: "high" }, users_default: 5 }, mo), 5);
  });

  test("roles by level: admin ≥ 100, manager ≥ 75, moderator ≥ 50", () => {
    assert.deepEqual([100, 99, 75, 74, 50, 49, 0].map(roleAt), [
      "admin",
      "manager",
      "manager",
      "moderator",
      "moderator",
      null,
      null,
    ]);
  });

  test("site roles from the Space; page roles from the page room, never below the site role", () => {
    assert.equal(siteRoleOf(rooms, alice), "admin");
    assert.equal(siteRoleOf(rooms, mo), null);
    assert.equal(pageRoleOf(rooms, mo, "a"), "moderator");
    assert.equal(pageRoleOf(rooms, mo, "b"), "manager");
    assert.equal(pageRoleOf(rooms, mo, "c"), null);
    assert.equal(pageRoleOf(rooms, alice, "b"), "admin", "a site admin on a page whose room does not list them");
    assert.deepEqual(pageRolesOf(rooms, mo), [
      { pageSlug: "a", role: "moderator" },
      { pageSlug: "b", role: "manager" },
    ]);
    assert.deepEqual(pageRolesOf(rooms, alice), [], "page roles no higher than the site role are not listed");
    assert.equal(siteRoleOf([], alice), null, "no Space yet: no site roles");
  });
});

describe("dashboard cursors", () => {
  test("round trips, tied to their list and order", () => {
    const page = { order: "commentCount" as const, value: 3, slug: "a" };
    assert.deepEqual(decodePageCursor(encodePageCursor(page), "commentCount"), page);
    const bySlug = { order: "slug" as const, value: "a", slug: "a" };
    assert.deepEqual(decodePageCursor(encodePageCursor(bySlug), "slug"), bySlug);
    const comment = { ts: 1_795_000_000_000, eventId: "$e" };
    assert.deepEqual(decodeCommentCursor(encodeCommentCursor(comment)), comment);
    assert.equal(
      code(() => decodePageCursor(encodePageCursor(page), "slug")),
      "400 invalid-cursor",
    );
    assert.equal(
      code(() => decodePageCursor(encodeCommentCursor(comment), "slug")),
      "400 invalid-cursor",
    );
  });

  test("anything else is 400 invalid-cursor", () => {
    const forged = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString("base64url");
    for (const cursor of [
      "",
      "!!",
      "x".repeat(601),
      Buffer.from("not json").toString("base64url"),
      forged({}),
      forged(["comment", 1.5, "$e"]),
      forged(["comment", 1, ""]),
      forged(["comment", 1, "$e", 4]),
      forged(["page", "slug", "a", "b"]),
      forged(["page", "lastActivity", "1", "a"]),
    ]) {
      assert.equal(
        code(() => decodeCommentCursor(cursor)),
        "400 invalid-cursor",
        cursor,
      );
      assert.equal(
        code(() => decodePageCursor(cursor, "slug")),
        "400 invalid-cursor",
        cursor,
      );
    }
    assert.equal(
      code(() => decodePageCursor(forged(["page", "lastActivity", "1", "a"]), "lastActivity")),
      "400 invalid-cursor",
    );
  });
});

describe("allowed homeservers", () => {
  const own = { serverName: "example.org", baseUrl: "http://127.0.0.1:8008/" };

  test("empty: the own homeserver only, at its configured URL", () => {
    assert.deepEqual(
      [...allowedHomeservers([], own)],
      [["example.org", { baseUrl: "http://127.0.0.1:8008", own: true }]],
    );
  });

  test("names and name=url entries; a bare other name is https://name", () => {
    assert.deepEqual(
      [...allowedHomeservers(["example.org", "matrix.org", "corp.example=https://hs.corp.example/base/"], own)],
      [
        ["example.org", { baseUrl: "http://127.0.0.1:8008", own: true }],
        ["matrix.org", { baseUrl: "https://matrix.org", own: false }],
        ["corp.example", { baseUrl: "https://hs.corp.example/base", own: false }],
      ],
    );
  });

  test("malformed entries stop start-up naming the key", () => {
    for (const entry of ["", "bad name", "x=ftp://host", "x=not a url"])
      assert.throws(() => allowedHomeservers([entry], own), /dashboard\.openid_homeservers/);
  });
});

describe("session cookie and origin", () => {
  test("HttpOnly, SameSite=Strict, Secure only over HTTPS; cleared with Max-Age=0", () => {
    assert.equal(
      sessionCookieHeader("ds_x", 60, false),
      "dashboard_session=ds_x; Path=/; Max-Age=60; HttpOnly; SameSite=Strict",
    );
    assert.match(sessionCookieHeader("ds_x", 60, true), /; Secure$/);
    assert.equal(clearedSessionCookie(false), "dashboard_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
  });

  test("HTTPS: the public base URL's scheme, else a trusted proxy's X-Forwarded-Proto", () => {
    const request = (viaTrustedProxy: boolean, proto?: string) => ({
      method: "POST",
      target: "/",
      headers: { "x-forwarded-proto": proto },
      rawBody: Buffer.alloc(0),
      clientIp: "127.0.0.1",
      viaTrustedProxy,
    });
    assert.equal(servedOverHttps("https://comments.example", null), true);
    assert.equal(servedOverHttps("http://comments.example", request(true, "https")), false);
    assert.equal(servedOverHttps(null, request(true, "https, http")), true);
    assert.equal(servedOverHttps(null, request(false, "https")), false);
    assert.equal(servedOverHttps(null, null), false);
  });

  test("the session cookie among others; same-origin by public base URL or Host", () => {
    assert.equal(sessionCookie("a=1; dashboard_session=ds_abc; b=2"), "ds_abc");
    assert.equal(sessionCookie("a=1"), null);
    assert.equal(sessionCookie(undefined), null);
    assert.equal(sameOrigin({ origin: "https://c.example", host: "internal:8080" }, "https://c.example"), true);
    assert.equal(sameOrigin({ origin: "https://evil.example", host: "c.example" }, "https://c.example"), false);
    assert.equal(sameOrigin({ origin: "http://c.example:8080", host: "c.example:8080" }, null), true);
    assert.equal(sameOrigin({ host: "c.example" }, null), false);
    assert.equal(sameOrigin({ origin: "null", host: "c.example" }, null), false);
  });
});
