import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { MatrixNames, registrationYaml } from "../../src/matrix/names.ts";

const names = new MatrixNames("_service_", "localhost");
const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 1));

/** The contract's derivation, written independently: SHA-256(utf8(site_id) || 0x00 || key). */
function contractLocalpart(siteId: string, key: Buffer): string {
  const input = Buffer.concat([Buffer.from(siteId, "utf8"), Buffer.from([0x00]), key]);
  return `_service_v_${createHash("sha256").update(input).digest("hex").slice(0, 32)}`;
}

describe("visitor identities", () => {
  test("localpart is _service_v_ + first 32 lowercase hex of SHA-256(site_id || 0x00 || key)", () => {
    const localpart = names.visitorLocalpart("my-blog", KEY);
    assert.equal(localpart, contractLocalpart("my-blog", KEY));
    assert.match(localpart, /^_service_v_[0-9a-f]{32}$/);
  });

  test("user id carries the server name", () => {
    assert.equal(names.visitorUserId("my-blog", KEY), `@${contractLocalpart("my-blog", KEY)}:localhost`);
  });

  test("the same key has unrelated identities on different sites", () => {
    assert.notEqual(names.visitorLocalpart("my-blog", KEY), names.visitorLocalpart("other-blog", KEY));
    assert.equal(names.visitorLocalpart("other-blog", KEY), contractLocalpart("other-blog", KEY));
  });

  test("the separator byte prevents site/key boundary collisions", () => {
    // "a" + key starting with "b" must differ from "ab" + key without that byte.
    const key = Buffer.concat([Buffer.from("b"), Buffer.alloc(31, 5)]);
    assert.notEqual(names.visitorLocalpart("a", key), names.visitorLocalpart("ab", key.subarray(1)));
  });

  test("different keys on one site differ", () => {
    const other = Buffer.from(KEY);
    other[31] = other[31]! ^ 1;
    assert.notEqual(names.visitorLocalpart("my-blog", KEY), names.visitorLocalpart("my-blog", other));
  });

  test("isVisitorUserId", () => {
    assert.equal(names.isVisitorUserId(names.visitorUserId("my-blog", KEY)), true);
    assert.equal(names.isVisitorUserId("@_service_bot:localhost"), false);
    assert.equal(names.isVisitorUserId("@alice:localhost"), false);
    assert.equal(names.isVisitorUserId(`@${contractLocalpart("my-blog", KEY)}:elsewhere`), false);
  });
});

describe("bot and aliases", () => {
  test("bot user id", () => {
    assert.equal(names.botUserId, "@_service_bot:localhost");
  });
  test("space alias #_service_<site_id>:<server>", () => {
    assert.equal(names.alias(names.spaceAliasLocalpart("my-blog")), "#_service_my-blog:localhost");
  });
  test("page room alias #_service_<site_id>_<page_slug>:<server>", () => {
    assert.equal(
      names.alias(names.roomAliasLocalpart("my-blog", "hello-world")),
      "#_service_my-blog_hello-world:localhost",
    );
  });
  test("another prefix and server", () => {
    const custom = new MatrixNames("cmt_", "matrix.example.org:8448");
    assert.equal(custom.botUserId, "@cmt_bot:matrix.example.org:8448");
    assert.equal(custom.alias(custom.roomAliasLocalpart("s", "p")), "#cmt_s_p:matrix.example.org:8448");
    assert.match(custom.visitorLocalpart("s", KEY), /^cmt_v_[0-9a-f]{32}$/);
  });
});

/** The value of the first `regex:` line after `  <section>:` in the generated YAML. */
function namespaceRegex(yaml: string, section: "users" | "aliases"): RegExp {
  const lines = yaml.split("\n");
  const start = lines.indexOf(`  ${section}:`);
  assert.ok(start >= 0, `namespaces.${section} present`);
  const line = lines.slice(start + 1).find((l) => /^\s+regex:/.test(l));
  assert.ok(line, `namespaces.${section} has a regex`);
  const quoted = line.replace(/^\s+regex:\s*/, "");
  // YAML double-quoted scalars share JSON's escapes for what the generator writes.
  assert.match(quoted, /^".*"$/);
  // Synapse matches namespace regexes from the start of the id (re.match).
  return new RegExp(`^(?:${JSON.parse(quoted) as string})`);
}

describe("registrationYaml", () => {
  const yaml = registrationYaml({
    id: "comment-service",
    url: "http://127.0.0.1:8080",
    asToken: "as-secret-token",
    hsToken: "hs-secret-token",
    names,
  });

  test("carries id, url, tokens and sender", () => {
    const lines = yaml.split("\n");
    assert.ok(lines.includes('id: "comment-service"'));
    assert.ok(lines.includes('url: "http://127.0.0.1:8080"'));
    assert.ok(lines.includes('as_token: "as-secret-token"'));
    assert.ok(lines.includes('hs_token: "hs-secret-token"'));
    assert.ok(lines.includes('sender_localpart: "_service_bot"'));
  });

  test("receives ephemeral events", () => {
    assert.ok(yaml.split("\n").includes("receive_ephemeral: true"));
  });

  test("the user namespace covers the bot and visitors, not other users", () => {
    const users = namespaceRegex(yaml, "users");
    assert.equal(users.test("@_service_bot:localhost"), true);
    assert.equal(users.test(names.visitorUserId("my-blog", KEY)), true);
    assert.equal(users.test("@alice:localhost"), false);
    assert.equal(users.test("@_service_bot:otherhost"), false);
    assert.equal(users.test("@x_service_bot:localhost"), false);
  });

  test("the alias namespace covers space and page aliases, not other aliases", () => {
    const aliases = namespaceRegex(yaml, "aliases");
    assert.equal(aliases.test("#_service_my-blog:localhost"), true);
    assert.equal(aliases.test("#_service_my-blog_hello-world:localhost"), true);
    assert.equal(aliases.test("#alice:localhost"), false);
    assert.equal(aliases.test("@_service_bot:localhost"), false);
  });

  test("server names with regex metacharacters are escaped", () => {
    const dotted = new MatrixNames("_service_", "matrix.example.org");
    const y = registrationYaml({ id: "x", url: "http://h", asToken: "a", hsToken: "h", names: dotted });
    const users = namespaceRegex(y, "users");
    assert.equal(users.test("@_service_bot:matrix.example.org"), true);
    assert.equal(users.test("@_service_bot:matrixXexampleXorg"), false);
  });

  test("tokens with quotes are quoted safely", () => {
    const y = registrationYaml({ id: "x", url: "http://h", asToken: 'a"b\\c', hsToken: "h", names });
    assert.ok(y.split("\n").includes('as_token: "a\\"b\\\\c"'));
  });
});
