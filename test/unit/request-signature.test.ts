import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import {
  SIGNATURE_TOLERANCE_SECONDS,
  checkRequestSignature,
  sha256Hex,
  signRequest,
  type SignedRequest,
} from "../../src/security/request-signature.ts";

const SECRET = "s3cr3t-ünïcode";
const NOW = 1_763_726_400;

/** The contract's HMAC, computed without the module. */
function contractSignature(secret: string, timestamp: string, method: string, target: string, body: Buffer): string {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  const message = `${timestamp}\n${method}\n${target}\n${bodyHash}`;
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(Buffer.from(message, "utf8")).digest("hex");
}

const request = (overrides: Partial<SignedRequest> = {}): SignedRequest => ({
  method: "POST",
  target: "/api/v1/sites/my-blog/pages/p/comments?x=1&y=%C3%A9",
  body: Buffer.from('{"content":"héllo"}', "utf8"),
  timestamp: String(NOW),
  ...overrides,
});

describe("sha256Hex", () => {
  test("empty input is the SHA-256 of the empty string", () => {
    assert.equal(sha256Hex(Buffer.alloc(0)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
  test("known vector", () => {
    assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("signRequest", () => {
  test("equals HMAC-SHA256(secret, timestamp\\nMETHOD\\ntarget\\nsha256hex(body)) in lowercase hex", () => {
    const r = request();
    const signature = signRequest(SECRET, r);
    assert.match(signature, /^[0-9a-f]{64}$/);
    assert.equal(signature, contractSignature(SECRET, r.timestamp, "POST", r.target, r.body));
  });

  test("empty body hashes the empty string", () => {
    const r = request({ method: "DELETE", body: Buffer.alloc(0), target: "/api/v1/x" });
    const message = `${NOW}\nDELETE\n/api/v1/x\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855`;
    assert.equal(signRequest(SECRET, r), createHmac("sha256", SECRET).update(message).digest("hex"));
  });

  test("the method is signed in upper case", () => {
    const r = request({ method: "patch" });
    assert.equal(signRequest(SECRET, r), contractSignature(SECRET, r.timestamp, "PATCH", r.target, r.body));
  });

  test("the query string is part of the signed target", () => {
    assert.notEqual(
      signRequest(SECRET, request()),
      signRequest(SECRET, request({ target: "/api/v1/sites/my-blog/pages/p/comments" })),
    );
  });
});

describe("checkRequestSignature", () => {
  const signed = (r: SignedRequest) => contractSignature(SECRET, r.timestamp, r.method.toUpperCase(), r.target, r.body);

  test("tolerance is 5 minutes", () => {
    assert.equal(SIGNATURE_TOLERANCE_SECONDS, 300);
  });

  test("a correct signature is ok", () => {
    const r = request();
    assert.equal(checkRequestSignature(SECRET, r, signed(r), NOW), "ok");
  });

  test("300 s in either direction is ok, 301 s is stale", () => {
    const r = request();
    const sig = signed(r);
    assert.equal(checkRequestSignature(SECRET, r, sig, NOW + 300), "ok");
    assert.equal(checkRequestSignature(SECRET, r, sig, NOW - 300), "ok");
    assert.equal(checkRequestSignature(SECRET, r, sig, NOW + 301), "stale");
    assert.equal(checkRequestSignature(SECRET, r, sig, NOW - 301), "stale");
  });

  test("another secret is a mismatch", () => {
    const r = request();
    assert.equal(checkRequestSignature("other", r, signed(r), NOW), "mismatch");
  });

  test("a different body, target, method or timestamp is a mismatch", () => {
    const r = request();
    const sig = signed(r);
    assert.equal(
      checkRequestSignature(SECRET, { ...r, body: Buffer.from('{"content":"hello"}') }, sig, NOW),
      "mismatch",
    );
    assert.equal(
      checkRequestSignature(SECRET, { ...r, target: "/api/v1/sites/my-blog/pages/p/comments" }, sig, NOW),
      "mismatch",
    );
    assert.equal(checkRequestSignature(SECRET, { ...r, method: "PUT" }, sig, NOW), "mismatch");
    assert.equal(checkRequestSignature(SECRET, { ...r, timestamp: String(NOW + 1) }, sig, NOW), "mismatch");
  });

  test("malformed timestamps", () => {
    const r = request();
    const sig = signed(r);
    for (const timestamp of ["", "12.5", "-5", "1e9", " 1763726400", "0x10", "1763726400000000"]) {
      assert.equal(
        checkRequestSignature(SECRET, { ...r, timestamp }, sig, NOW),
        "malformed",
        JSON.stringify(timestamp),
      );
    }
  });

  test("malformed signatures: upper case, short, long, non-hex", () => {
    const r = request();
    const sig = signed(r);
    for (const bad of [
      sig.toUpperCase(),
      sig.slice(0, 63),
      `${sig}0`,
      `${sig.slice(0, 63)}g`,
      "",
      Buffer.from(sig, "hex").toString("base64"),
    ]) {
      assert.equal(checkRequestSignature(SECRET, r, bad, NOW), "malformed", bad);
    }
  });

  test("a malformed timestamp is reported before staleness", () => {
    const r = request({ timestamp: "abc" });
    assert.equal(checkRequestSignature(SECRET, r, "0".repeat(64), NOW), "malformed");
  });
});
