// Signed media URLs: the signed message, expiry buckets, forged and expired signatures.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import {
  checkMediaSignature,
  expiryFor,
  mediaSignature,
  signingMessage,
  type MediaTarget,
} from "../../src/features/media/signing.ts";

const KEY = Buffer.alloc(32, 7);
const ORIGINAL: MediaTarget = { server: "example.org", mediaId: "AbC_d-9", thumbnail: null };
const THUMB: MediaTarget = { ...ORIGINAL, thumbnail: { width: 320, height: 240, method: "scale" } };
const NOW = Date.UTC(2026, 10, 22, 8, 30, 17, 500);

describe("media URL signatures", () => {
  test("the signed message spells absent thumbnail parameters as their defaults", () => {
    assert.equal(signingMessage(ORIGINAL, 1234), "example.org/AbC_d-9///scale/1234");
    assert.equal(signingMessage(THUMB, 1234), "example.org/AbC_d-9/320/240/scale/1234");
    assert.equal(
      signingMessage({ ...ORIGINAL, thumbnail: { width: 96, height: 96, method: "crop" } }, 5),
      "example.org/AbC_d-9/96/96/crop/5",
    );
  });

  test("sig is unpadded base64url of HMAC-SHA256 over the message", () => {
    const expected = createHmac("sha256", KEY).update("example.org/AbC_d-9/320/240/scale/99").digest("base64url");
    assert.equal(mediaSignature(KEY, THUMB, 99), expected);
    assert.match(expected, /^[A-Za-z0-9_-]{43}$/);
  });

  test("expiry is 15 minutes after the start of the current minute", () => {
    const minuteStart = Math.floor(NOW / 60_000) * 60;
    assert.equal(expiryFor(NOW), minuteStart + 900);
    assert.equal(expiryFor(NOW + 1000), expiryFor(NOW), "same minute, same URL");
    assert.equal(expiryFor(NOW + 60_000), expiryFor(NOW) + 60);
  });

  test("a genuine signature is valid until its expiry, then expired", () => {
    const expires = expiryFor(NOW);
    const sig = mediaSignature(KEY, THUMB, expires);
    assert.equal(checkMediaSignature(KEY, THUMB, expires, sig, NOW), "valid");
    assert.equal(checkMediaSignature(KEY, THUMB, expires, sig, expires * 1000 - 1), "valid");
    assert.equal(checkMediaSignature(KEY, THUMB, expires, sig, expires * 1000), "expired");
    assert.equal(
      checkMediaSignature(KEY, THUMB, expires, `${sig}==`.slice(0, -1), NOW),
      "valid",
      "padding is tolerated",
    );
  });

  test("anything else is invalid, expired or not", () => {
    const expires = expiryFor(NOW);
    const sig = mediaSignature(KEY, THUMB, expires);
    const invalid = (target: MediaTarget, exp: number, s: string, now = NOW) =>
      assert.equal(checkMediaSignature(KEY, target, exp, s, now), "invalid");
    invalid(ORIGINAL, expires, sig);
    invalid({ ...THUMB, thumbnail: { width: 320, height: 240, method: "crop" } }, expires, sig);
    invalid({ ...THUMB, thumbnail: { width: 321, height: 240, method: "scale" } }, expires, sig);
    invalid({ ...THUMB, mediaId: "AbC_d-8" }, expires, sig);
    invalid({ ...THUMB, server: "example.net" }, expires, sig);
    invalid(THUMB, expires + 60, sig);
    invalid(THUMB, expires, sig.slice(0, -1));
    invalid(THUMB, expires, "not base64url!");
    invalid(THUMB, expires, "");
    assert.equal(checkMediaSignature(Buffer.alloc(32, 8), THUMB, expires, sig, NOW), "invalid", "another key");
  });

  test("an expiry further out than the service signs is refused even with a genuine signature", () => {
    const far = expiryFor(NOW) + 3600;
    assert.equal(checkMediaSignature(KEY, THUMB, far, mediaSignature(KEY, THUMB, far), NOW), "invalid");
  });
});
