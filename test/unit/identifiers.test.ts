import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { isValidEventId, isValidPageSlug, isValidSiteId, isValidUserId } from "../../src/core/identifiers.ts";

describe("site_id and page_slug: lowercase [a-z0-9-], 1-64 characters", () => {
  for (const [name, check] of [
    ["site_id", isValidSiteId],
    ["page_slug", isValidPageSlug],
  ] as const) {
    describe(name, () => {
      test("accepted", () => {
        for (const v of [
          "a",
          "my-blog",
          "0",
          "-",
          "post-2026-11-21",
          "a".repeat(64),
          "0123456789abcdef0123456789abcdef",
        ]) {
          assert.equal(check(v), true, v);
        }
      });
      test("65 characters rejected", () => {
        assert.equal(check("a".repeat(65)), false);
      });
      test("empty rejected", () => {
        assert.equal(check(""), false);
      });
      test("uppercase rejected", () => {
        assert.equal(check("My-Blog"), false);
        assert.equal(check("A"), false);
      });
      test("other characters rejected", () => {
        for (const v of ["my_blog", "my.blog", "my blog", "my/blog", "café", "a\n", "%41", "my-blog\u0000"]) {
          assert.equal(check(v), false, JSON.stringify(v));
        }
      });
    });
  }
});

describe("isValidEventId", () => {
  test("legacy $localpart:server", () => {
    assert.equal(isValidEventId("$abc:server"), true);
    assert.equal(isValidEventId("$abc:matrix.example.org:8448"), true);
  });
  test("room v3+ bare hashes, including '/' and '+'", () => {
    assert.equal(isValidEventId("$base64/with/slash"), true);
    assert.equal(isValidEventId("$acR1l0raoZnm60CBwAVgqbZqoO+mYU81xysh1u7XcJk"), true);
    assert.equal(isValidEventId("$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg"), true);
  });
  test("missing $ rejected", () => {
    assert.equal(isValidEventId("abc:server"), false);
    assert.equal(isValidEventId("!room:server"), false);
  });
  test("empty, bare $ and empty parts rejected", () => {
    assert.equal(isValidEventId(""), false);
    assert.equal(isValidEventId("$"), false);
    assert.equal(isValidEventId("$:server"), false);
    assert.equal(isValidEventId("$abc:"), false);
  });
  test("whitespace rejected", () => {
    assert.equal(isValidEventId("$a b:server"), false);
    assert.equal(isValidEventId("$abc:ser ver"), false);
    assert.equal(isValidEventId("$abc\n"), false);
  });
  test("at most 255 characters", () => {
    assert.equal(isValidEventId(`$${"a".repeat(254)}`), true);
    assert.equal(isValidEventId(`$${"a".repeat(255)}`), false);
  });
});

describe("isValidUserId", () => {
  test("@localpart:server, historical localparts, IP literals and ports", () => {
    for (const v of [
      "@alice:localhost",
      "@a.b_c=d-e/f+g:matrix.example.org",
      "@Alice!#:example.org",
      "@bob:example.org:8448",
      "@carol:[::1]:8448",
      "@dan:127.0.0.1",
    ]) {
      assert.equal(isValidUserId(v), true, v);
    }
  });
  test("other forms rejected", () => {
    for (const v of [
      "",
      "alice",
      "@alice",
      "@:localhost",
      "@alice:",
      "!room:localhost",
      "@al ice:localhost",
      "@alice:local host",
      "@alice:host:port",
      "@café:localhost",
    ]) {
      assert.equal(isValidUserId(v), false, JSON.stringify(v));
    }
  });
  test("at most 255 characters", () => {
    assert.equal(isValidUserId(`@${"a".repeat(244)}:localhost`), true);
    assert.equal(isValidUserId(`@${"a".repeat(245)}:localhost`), false);
  });
});
