import { test, describe } from "node:test";
import assert from "node:assert/strict";
import sodium from "sodium-native";
import {
  canonicalMessage,
  parseAuthorProof,
  parsePublicKey,
  parseSignature,
  verifySignature,
} from "../../src/security/author-proof.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";

const SITE = "my-blog";
const PAGE = "hello-world";
const CH = "Q2hhbGxlbmdl_-0";

function keypair(): { publicKey: Buffer; secretKey: Buffer } {
  const publicKey = Buffer.alloc(sodium.crypto_sign_PUBLICKEYBYTES);
  const secretKey = Buffer.alloc(sodium.crypto_sign_SECRETKEYBYTES);
  sodium.crypto_sign_keypair(publicKey, secretKey);
  return { publicKey, secretKey };
}

/** Signs exactly what a client would: the UTF-8 bytes of JSON.stringify(array). */
function clientSign(secretKey: Buffer, array: unknown[]): Buffer {
  const signature = Buffer.alloc(sodium.crypto_sign_BYTES);
  sodium.crypto_sign_detached(signature, Buffer.from(JSON.stringify(array), "utf8"), secretKey);
  return signature;
}

describe("signatureArrays match the contract table byte for byte", () => {
  const cases: Array<[string, unknown[], string]> = [
    ["list personalization", signatureArrays.queryComments(SITE, PAGE), '["QUERY_COMMENTS","my-blog","hello-world"]'],
    [
      "comment post without relations",
      signatureArrays.postComment(SITE, PAGE, 'Hi "there" ✓', null, null, CH),
      '["POST_COMMENT","my-blog","hello-world","Hi \\"there\\" ✓",null,null,"Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "comment post with reply_to and thread_root",
      signatureArrays.postComment(SITE, PAGE, "text", "$reply:localhost", "$root:localhost", CH),
      '["POST_COMMENT","my-blog","hello-world","text","$reply:localhost","$root:localhost","Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "comment post with media url in place of content",
      signatureArrays.postComment(SITE, PAGE, "mxc://localhost/abc", null, "$root:localhost", CH),
      '["POST_COMMENT","my-blog","hello-world","mxc://localhost/abc",null,"$root:localhost","Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "comment edit",
      signatureArrays.editComment(SITE, PAGE, "$ev/1", "new text", CH),
      '["EDIT_COMMENT","my-blog","hello-world","$ev/1","new text","Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "comment delete",
      signatureArrays.deleteComment(SITE, PAGE, "$ev:localhost", CH),
      '["DELETE_COMMENT","my-blog","hello-world","$ev:localhost","Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "poll create",
      signatureArrays.createPoll(SITE, PAGE, "Best?", ["A", "B", "C"], 1, null, null, CH),
      '["CREATE_POLL","my-blog","hello-world",["Best?",["A","B","C"],1],null,null,"Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "react",
      signatureArrays.react(SITE, PAGE, "$ev:localhost", "👍", CH),
      '["REACT","my-blog","hello-world","$ev:localhost","👍","Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "unreact (no trailing 1)",
      signatureArrays.unreact(SITE, PAGE, "$ev:localhost", "👍", CH),
      '["UNREACT","my-blog","hello-world","$ev:localhost","👍","Q2hhbGxlbmdl_-0"]',
    ],
    [
      "vote",
      signatureArrays.vote(SITE, PAGE, "$poll:localhost", "opt-2", CH),
      '["VOTE","my-blog","hello-world","$poll:localhost","opt-2","Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "location",
      signatureArrays.locate(SITE, PAGE, "geo:48.85,2.35", "$reply:localhost", null, CH),
      '["LOCATE","my-blog","hello-world","geo:48.85,2.35","$reply:localhost",null,"Q2hhbGxlbmdl_-0",1]',
    ],
    [
      "media upload with filename",
      signatureArrays.upload(SITE, PAGE, "image/png", "cat.png", "e3b0c442", CH),
      '["UPLOAD","my-blog","hello-world","image/png","cat.png","e3b0c442","Q2hhbGxlbmdl_-0"]',
    ],
    [
      "media upload without filename (null)",
      signatureArrays.upload(SITE, PAGE, "image/png", null, "e3b0c442", CH),
      '["UPLOAD","my-blog","hello-world","image/png",null,"e3b0c442","Q2hhbGxlbmdl_-0"]',
    ],
    [
      "avatar upload",
      signatureArrays.uploadAvatar(SITE, "image/webp", "e3b0c442", CH),
      '["UPLOAD_AVATAR","my-blog","image/webp","e3b0c442","Q2hhbGxlbmdl_-0"]',
    ],
    ["avatar delete", signatureArrays.deleteAvatar(SITE, CH), '["DELETE_AVATAR","my-blog","Q2hhbGxlbmdl_-0"]'],
  ];
  for (const [name, array, expected] of cases) {
    test(name, () => {
      assert.equal(JSON.stringify(array), expected);
    });
  }

  test("every operation of the contract has an array", () => {
    assert.deepEqual(Object.keys(signatureArrays).sort(), [
      "createPoll",
      "deleteAvatar",
      "deleteComment",
      "editComment",
      "locate",
      "postComment",
      "queryComments",
      "react",
      "unreact",
      "upload",
      "uploadAvatar",
      "vote",
    ]);
  });
});

describe("canonicalMessage", () => {
  test("is the UTF-8 of compact JSON.stringify output", () => {
    assert.equal(canonicalMessage(["QUERY_COMMENTS", "a", "b"]).toString("utf8"), '["QUERY_COMMENTS","a","b"]');
  });

  test("non-ASCII is raw UTF-8, not \\u escapes", () => {
    assert.equal(
      canonicalMessage(["é", null, 1]).toString("hex"),
      Buffer.from('["\u00e9",null,1]', "utf8").toString("hex"),
    );
    assert.equal(canonicalMessage(["é"]).toString("hex"), "5b22c3a9225d");
  });

  test("nested arrays have no whitespace", () => {
    assert.equal(canonicalMessage([["q", ["a", "b"], 1]]).toString("utf8"), '[["q",["a","b"],1]]');
  });
});

describe("parsePublicKey", () => {
  const raw = Buffer.alloc(32, 0xfb); // 0xfb bytes produce '-' and '_' in base64url
  const unpadded = raw.toString("base64url");

  test("unpadded base64url of 32 bytes", () => {
    assert.equal(unpadded.length, 43);
    const key = parsePublicKey(unpadded);
    assert.deepEqual(key, { text: unpadded, bytes: raw });
  });

  test("padded input is accepted and normalized to unpadded", () => {
    const key = parsePublicKey(`${unpadded}=`);
    assert.equal(key?.text, unpadded);
    assert.deepEqual(key?.bytes, raw);
  });

  test("31 and 33 bytes are rejected", () => {
    assert.equal(parsePublicKey(Buffer.alloc(31, 1).toString("base64url")), null);
    assert.equal(parsePublicKey(Buffer.alloc(33, 1).toString("base64url")), null);
  });

  test("standard base64 alphabet is rejected", () => {
    assert.equal(parsePublicKey(raw.toString("base64")), null);
  });

  test("characters outside base64url are rejected", () => {
    assert.equal(parsePublicKey(`${unpadded.slice(0, -1)}!`), null);
    assert.equal(parsePublicKey(` ${unpadded}`), null);
  });

  test("non-strings are rejected", () => {
    assert.equal(parsePublicKey(undefined), null);
    assert.equal(parsePublicKey(null), null);
    assert.equal(parsePublicKey(42), null);
    assert.equal(parsePublicKey([...raw]), null);
  });
});

describe("parseSignature", () => {
  const raw = Buffer.alloc(64, 0xfe);
  test("unpadded 64 bytes", () => {
    assert.deepEqual(parseSignature(raw.toString("base64url")), raw);
  });
  test("padded 64 bytes", () => {
    assert.equal(raw.toString("base64url").length, 86);
    assert.deepEqual(parseSignature(`${raw.toString("base64url")}==`), raw);
  });
  test("63 and 65 bytes are rejected", () => {
    assert.equal(parseSignature(Buffer.alloc(63).toString("base64url")), null);
    assert.equal(parseSignature(Buffer.alloc(65).toString("base64url")), null);
  });
  test("hex and standard base64 are rejected", () => {
    assert.equal(parseSignature(raw.toString("hex")), null);
    assert.equal(parseSignature(raw.toString("base64")), null);
  });
  test("non-strings are rejected", () => {
    assert.equal(parseSignature(undefined), null);
    assert.equal(parseSignature(raw), null);
  });
});

describe("parseAuthorProof", () => {
  const key = Buffer.alloc(32, 7).toString("base64url");
  const sig = Buffer.alloc(64, 9).toString("base64url");

  test("well-formed fields are parsed", () => {
    const parsed = parseAuthorProof({ author_public_key: key, author_signature: sig, challenge_response: "abc|1" });
    assert.ok(!Array.isArray(parsed));
    assert.equal(parsed.key.text, key);
    assert.deepEqual(parsed.key.bytes, Buffer.alloc(32, 7));
    assert.deepEqual(parsed.signature, Buffer.alloc(64, 9));
    assert.equal(parsed.challengeResponse, "abc|1");
  });

  test("every missing field is reported, by name", () => {
    const errors = parseAuthorProof({});
    assert.ok(Array.isArray(errors));
    assert.deepEqual(
      errors.map((e) => e.field),
      ["author_public_key", "author_signature", "challenge_response"],
    );
  });

  test("only the malformed field is reported", () => {
    const errors = parseAuthorProof({ author_public_key: key, author_signature: sig, challenge_response: "no-bar" });
    assert.ok(Array.isArray(errors));
    assert.deepEqual(
      errors.map((e) => e.field),
      ["challenge_response"],
    );
  });

  test("a wrong-length key and a non-string challenge response", () => {
    const errors = parseAuthorProof({ author_public_key: sig, author_signature: sig, challenge_response: 5 });
    assert.ok(Array.isArray(errors));
    assert.deepEqual(
      errors.map((e) => e.field),
      ["author_public_key", "challenge_response"],
    );
  });
});

describe("verifySignature with a real Ed25519 keypair", () => {
  const { publicKey, secretKey } = keypair();
  const array = signatureArrays.postComment(SITE, PAGE, 'Bonjour 👋 "quoted"', null, "$root:localhost", CH);
  const signature = clientSign(secretKey, [...array]);

  test("a client signature over JSON.stringify(array) verifies", () => {
    assert.equal(verifySignature(publicKey, signature, array), true);
  });

  test("round trip through the wire encoding (unpadded base64url)", () => {
    const parsed = parseAuthorProof({
      author_public_key: publicKey.toString("base64url"),
      author_signature: signature.toString("base64url"),
      challenge_response: `${CH}|1`,
    });
    assert.ok(!Array.isArray(parsed));
    assert.equal(verifySignature(parsed.key.bytes, parsed.signature, array), true);
  });

  test("a tampered message is rejected", () => {
    const tampered = signatureArrays.postComment(SITE, PAGE, 'Bonjour 👋 "quoted"!', null, "$root:localhost", CH);
    assert.equal(verifySignature(publicKey, signature, tampered), false);
  });

  test("swapped relations are rejected", () => {
    const swapped = signatureArrays.postComment(SITE, PAGE, 'Bonjour 👋 "quoted"', "$root:localhost", null, CH);
    assert.equal(verifySignature(publicKey, signature, swapped), false);
  });

  test("a tampered signature is rejected", () => {
    const bad = Buffer.from(signature);
    bad[10] = bad[10]! ^ 0x80;
    assert.equal(verifySignature(publicKey, bad, array), false);
  });

  test("another key is rejected", () => {
    assert.equal(verifySignature(keypair().publicKey, signature, array), false);
  });

  test("a signature over pretty-printed JSON is rejected", () => {
    const pretty = Buffer.alloc(sodium.crypto_sign_BYTES);
    sodium.crypto_sign_detached(pretty, Buffer.from(JSON.stringify(array, null, 1), "utf8"), secretKey);
    assert.equal(verifySignature(publicKey, pretty, array), false);
  });
});
