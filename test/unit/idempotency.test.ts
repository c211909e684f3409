import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { IDEMPOTENCY_RETENTION_MS, parseIdempotencyKey, requestFingerprint } from "../../src/security/idempotency.ts";

describe("parseIdempotencyKey", () => {
  test("bare token", () => {
    assert.equal(parseIdempotencyKey("8e03978e-40d5-43e8-bc93-6894a57f9324"), "8e03978e-40d5-43e8-bc93-6894a57f9324");
  });
  test("structured-field string is unquoted", () => {
    assert.equal(parseIdempotencyKey('"8e03978e-40d5"'), "8e03978e-40d5");
  });
  test("bare and quoted forms name the same key", () => {
    assert.equal(parseIdempotencyKey('"abc"'), parseIdempotencyKey("abc"));
  });
  test("visible ASCII punctuation is allowed", () => {
    assert.equal(parseIdempotencyKey("a!#$%&'()*+,-./:;<=>?@[]^_`{|}~z"), "a!#$%&'()*+,-./:;<=>?@[]^_`{|}~z");
  });
  test("empty and empty-quoted are rejected", () => {
    assert.equal(parseIdempotencyKey(""), null);
    assert.equal(parseIdempotencyKey('""'), null);
  });
  test("255 characters accepted, 256 rejected", () => {
    assert.equal(parseIdempotencyKey("k".repeat(255)), "k".repeat(255));
    assert.equal(parseIdempotencyKey("k".repeat(256)), null);
    assert.equal(parseIdempotencyKey(`"${"k".repeat(255)}"`), "k".repeat(255));
    assert.equal(parseIdempotencyKey(`"${"k".repeat(256)}"`), null);
  });
  test("spaces, tabs and control characters are rejected", () => {
    assert.equal(parseIdempotencyKey("a b"), null);
    assert.equal(parseIdempotencyKey('"a b"'), null);
    assert.equal(parseIdempotencyKey("a\tb"), null);
    assert.equal(parseIdempotencyKey("a\u0000b"), null);
    assert.equal(parseIdempotencyKey("a\u007fb"), null);
  });
  test("non-ASCII is rejected", () => {
    assert.equal(parseIdempotencyKey("clé"), null);
    assert.equal(parseIdempotencyKey("🔑"), null);
  });
  test("quotes or backslashes inside a quoted key are rejected", () => {
    assert.equal(parseIdempotencyKey('"a"b"'), null);
    assert.equal(parseIdempotencyKey('"a\\b"'), null);
  });
});

describe("requestFingerprint", () => {
  const body = Buffer.from('{"content":"hi"}');
  const base = requestFingerprint("POST", "/api/v1/sites/s/pages/p/comments", body);

  test("is a SHA-256 hex digest, stable for the same input", () => {
    assert.match(base, /^[0-9a-f]{64}$/);
    assert.equal(requestFingerprint("POST", "/api/v1/sites/s/pages/p/comments", Buffer.from('{"content":"hi"}')), base);
  });
  test("differs by method", () => {
    assert.notEqual(requestFingerprint("PATCH", "/api/v1/sites/s/pages/p/comments", body), base);
  });
  test("differs by target", () => {
    assert.notEqual(requestFingerprint("POST", "/api/v1/sites/s/pages/q/comments", body), base);
    assert.notEqual(requestFingerprint("POST", "/api/v1/sites/s/pages/p/comments?a=1", body), base);
  });
  test("differs by body", () => {
    assert.notEqual(
      requestFingerprint("POST", "/api/v1/sites/s/pages/p/comments", Buffer.from('{"content":"hi!"}')),
      base,
    );
    assert.notEqual(requestFingerprint("POST", "/api/v1/sites/s/pages/p/comments", Buffer.alloc(0)), base);
  });
  test("differs by extra (upload mime and filename)", () => {
    const a = requestFingerprint("POST", "/m", body, ["image/png", "a.png"]);
    assert.notEqual(a, requestFingerprint("POST", "/m", body, ["image/png", "b.png"]));
    assert.notEqual(a, requestFingerprint("POST", "/m", body, ["image/jpeg", "a.png"]));
    assert.notEqual(a, requestFingerprint("POST", "/m", body));
    assert.notEqual(requestFingerprint("POST", "/m", body, [""]), requestFingerprint("POST", "/m", body));
    assert.equal(a, requestFingerprint("POST", "/m", Buffer.from(body), ["image/png", "a.png"]));
  });
});

test("idempotency records are kept 24 hours", () => {
  assert.equal(IDEMPOTENCY_RETENTION_MS, 86_400_000);
});
