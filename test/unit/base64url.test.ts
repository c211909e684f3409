import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { fromBase64Url, toBase64Url } from "../../src/security/base64url.ts";

describe("toBase64Url", () => {
  test("uses the URL-safe alphabet without padding (RFC 4648 section 5)", () => {
    assert.equal(toBase64Url(Uint8Array.from([0xfb, 0xff])), "-_8");
    assert.equal(toBase64Url(Uint8Array.from([0xfb, 0xef, 0xbe])), "----");
    assert.equal(toBase64Url(Uint8Array.from([0xff, 0xff, 0xff])), "____");
    assert.equal(toBase64Url(Buffer.from("f")), "Zg");
    assert.equal(toBase64Url(Buffer.from("fo")), "Zm8");
    assert.equal(toBase64Url(Buffer.from("foo")), "Zm9v");
    assert.equal(toBase64Url(new Uint8Array(0)), "");
  });
});

describe("fromBase64Url", () => {
  test("decodes unpadded input", () => {
    assert.deepEqual(fromBase64Url("-_8"), Buffer.from([0xfb, 0xff]));
    assert.deepEqual(fromBase64Url("Zm9vYg"), Buffer.from("foob"));
  });

  test("accepts padding", () => {
    assert.deepEqual(fromBase64Url("-_8="), Buffer.from([0xfb, 0xff]));
    assert.deepEqual(fromBase64Url("Zg=="), Buffer.from("f"));
  });

  test("rejects the standard alphabet", () => {
    assert.equal(fromBase64Url("+/8"), null);
    assert.equal(fromBase64Url("+/8="), null);
  });

  test("rejects non-canonical trailing bits", () => {
    assert.equal(fromBase64Url("Zh"), null); // "Zg" is the canonical encoding of "f"
    assert.equal(fromBase64Url("-_9"), null);
  });

  test("rejects impossible lengths", () => {
    assert.equal(fromBase64Url("A"), null);
    assert.equal(fromBase64Url("AAAAA"), null);
  });

  test("rejects whitespace, other characters and excess padding", () => {
    assert.equal(fromBase64Url("Zm9v\n"), null);
    assert.equal(fromBase64Url(" Zm9v"), null);
    assert.equal(fromBase64Url("Zm.v"), null);
    assert.equal(fromBase64Url("Zg==="), null);
    assert.equal(fromBase64Url("Z=g="), null);
  });

  test("round trips every length from 0 to 70", () => {
    for (let n = 0; n <= 70; n++) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff));
      const text = toBase64Url(bytes);
      assert.match(text, /^[A-Za-z0-9_-]*$/);
      assert.deepEqual(fromBase64Url(text), bytes, `length ${n}`);
    }
  });
});
