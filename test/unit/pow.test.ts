import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  CHALLENGE_TTL_MS,
  POW_ALGORITHM,
  checkChallengeResponse,
  issueChallenge,
  leadingZeroBits,
  solveChallenge,
} from "../../src/security/pow.ts";

const SECRET = Buffer.from("0123456789abcdef0123456789abcdef", "utf8");
const OTHER_SECRET = Buffer.from("fedcba9876543210fedcba9876543210", "utf8");
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** Leading zero bits computed independently of the module (bit by bit). */
function zeroBitsIndependent(bytes: Uint8Array): number {
  let n = 0;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      if ((byte >> bit) & 1) return n;
      n++;
    }
  }
  return n;
}

/** First nonce (base 36 counter) whose response hash has a work value accepted by `pick`. */
function findNonce(challenge: string, pick: (bits: number) => boolean): string {
  for (let i = 0; i < 1_000_000; i++) {
    const nonce = i.toString(36);
    if (pick(zeroBitsIndependent(sha256(`${challenge}|${nonce}`)))) return nonce;
  }
  throw new Error("no nonce found");
}

describe("contract constants", () => {
  test("challenges live 5 minutes", () => {
    assert.equal(CHALLENGE_TTL_MS, 300_000);
  });
  test("algorithm name", () => {
    assert.equal(POW_ALGORITHM, "sha256-leading-zero-bits");
  });
});

describe("issueChallenge", () => {
  test("challenge is [A-Za-z0-9_-] without '|', with the given difficulty and a 5 minute expiry", () => {
    const c = issueChallenge(SECRET, 16, NOW);
    assert.match(c.challenge, /^[A-Za-z0-9_-]+$/);
    assert.equal(c.challenge.includes("|"), false);
    assert.equal(c.difficulty, 16);
    assert.equal(c.expiresAt.toISOString(), "2026-11-21T12:05:00.000Z");
  });

  test("two challenges issued at the same instant differ", () => {
    assert.notEqual(issueChallenge(SECRET, 16, NOW).challenge, issueChallenge(SECRET, 16, NOW).challenge);
  });
});

describe("checkChallengeResponse", () => {
  test("a solved challenge is accepted and reports its challenge prefix and expiry", () => {
    const c = issueChallenge(SECRET, 8, NOW);
    const response = solveChallenge(c.challenge, 8);
    assert.ok(response.startsWith(`${c.challenge}|`));
    assert.match(response.slice(c.challenge.length + 1), /^[A-Za-z0-9]{1,64}$/);
    assert.ok(zeroBitsIndependent(sha256(response)) >= 8);
    assert.deepEqual(checkChallengeResponse(SECRET, response, NOW + 1000), {
      ok: true,
      challenge: c.challenge,
      expiresAt: new Date(NOW + CHALLENGE_TTL_MS),
    });
  });

  test("an answer with exactly `difficulty` leading zero bits is enough", () => {
    const c = issueChallenge(SECRET, 12, NOW);
    const nonce = findNonce(c.challenge, (bits) => bits === 12);
    const result = checkChallengeResponse(SECRET, `${c.challenge}|${nonce}`, NOW);
    assert.equal(result.ok, true);
  });

  test("insufficient work is rejected", () => {
    const c = issueChallenge(SECRET, 12, NOW);
    const nonce = findNonce(c.challenge, (bits) => bits < 12);
    assert.deepEqual(checkChallengeResponse(SECRET, `${c.challenge}|${nonce}`, NOW), {
      ok: false,
      reason: "insufficient-work",
    });
  });

  test("11 bits of work fall short of difficulty 12", () => {
    const c = issueChallenge(SECRET, 12, NOW);
    const nonce = findNonce(c.challenge, (bits) => bits === 11);
    assert.deepEqual(checkChallengeResponse(SECRET, `${c.challenge}|${nonce}`, NOW), {
      ok: false,
      reason: "insufficient-work",
    });
  });

  test("valid until expiresAt inclusive, expired one millisecond later", () => {
    const c = issueChallenge(SECRET, 0, NOW);
    const response = `${c.challenge}|abc`;
    assert.equal(checkChallengeResponse(SECRET, response, NOW + CHALLENGE_TTL_MS).ok, true);
    assert.deepEqual(checkChallengeResponse(SECRET, response, NOW + CHALLENGE_TTL_MS + 1), {
      ok: false,
      reason: "expired",
    });
  });

  test("a challenge issued with another secret is forged", () => {
    const c = issueChallenge(OTHER_SECRET, 0, NOW);
    assert.deepEqual(checkChallengeResponse(SECRET, `${c.challenge}|abc`, NOW), { ok: false, reason: "forged" });
  });

  test("a flipped byte anywhere in the token is forged", () => {
    const c = issueChallenge(SECRET, 0, NOW);
    const token = Buffer.from(c.challenge, "base64url");
    for (const index of [0, 15, 16, 23, 24, token.length - 1]) {
      const tampered = Buffer.from(token);
      tampered[index] = tampered[index]! ^ 0x01;
      const result = checkChallengeResponse(SECRET, `${tampered.toString("base64url")}|abc`, NOW);
      assert.deepEqual(result, { ok: false, reason: "forged" }, `byte ${index}`);
    }
  });

  test("lowering the difficulty inside the token is detected as forged", () => {
    const c = issueChallenge(SECRET, 20, NOW);
    const token = Buffer.from(c.challenge, "base64url");
    // Find the difficulty byte without relying on the layout: the only byte equal to 20 that,
    // when zeroed, would make the answer below acceptable. Zero every candidate in turn.
    let tried = 0;
    for (let i = 0; i < token.length; i++) {
      if (token[i] !== 20) continue;
      tried++;
      const tampered = Buffer.from(token);
      tampered[i] = 0;
      assert.deepEqual(checkChallengeResponse(SECRET, `${tampered.toString("base64url")}|abc`, NOW), {
        ok: false,
        reason: "forged",
      });
    }
    assert.ok(tried >= 1);
  });

  test("expiry extended inside the token is detected as forged", () => {
    const c = issueChallenge(SECRET, 0, NOW);
    const token = Buffer.from(c.challenge, "base64url");
    const later = Buffer.alloc(8);
    later.writeBigUInt64BE(BigInt(NOW + CHALLENGE_TTL_MS));
    const at = token.indexOf(later);
    assert.ok(at >= 0, "the expiry is carried in the token");
    token.writeBigUInt64BE(BigInt(NOW + 10 * CHALLENGE_TTL_MS), at);
    assert.deepEqual(checkChallengeResponse(SECRET, `${token.toString("base64url")}|abc`, NOW + 2 * CHALLENGE_TTL_MS), {
      ok: false,
      reason: "forged",
    });
  });

  describe("malformed responses", () => {
    const c = issueChallenge(SECRET, 0, NOW);
    const cases: Array<[string, string]> = [
      ["no '|'", c.challenge],
      ["empty nonce", `${c.challenge}|`],
      ["empty challenge", "|abc"],
      ["nonce with '-'", `${c.challenge}|ab-c`],
      ["nonce with '_'", `${c.challenge}|ab_c`],
      ["nonce with space", `${c.challenge}|ab c`],
      ["nonce with non-ASCII", `${c.challenge}|abé`],
      ["second '|'", `${c.challenge}|ab|c`],
      ["nonce of 65 characters", `${c.challenge}|${"a".repeat(65)}`],
      ["padded challenge", `${c.challenge}=|abc`],
      ["challenge with '+'", `${c.challenge.slice(0, -1)}+|abc`],
      ["truncated challenge", `${c.challenge.slice(0, -2)}|abc`],
      ["challenge with extra characters", `${c.challenge}AAAA|abc`],
      ["empty string", ""],
      ["only '|'", "|"],
    ];
    for (const [name, response] of cases) {
      test(name, () => {
        assert.deepEqual(checkChallengeResponse(SECRET, response, NOW), { ok: false, reason: "malformed" });
      });
    }

    test("a nonce of exactly 64 characters is well formed", () => {
      assert.equal(checkChallengeResponse(SECRET, `${c.challenge}|${"aZ9".repeat(21)}a`, NOW).ok, true);
    });

    test("a nonce of one character is well formed", () => {
      assert.equal(checkChallengeResponse(SECRET, `${c.challenge}|Z`, NOW).ok, true);
    });
  });
});

describe("leadingZeroBits", () => {
  const cases: Array<[number[], number]> = [
    [[], 0],
    [[0xff], 0],
    [[0x80], 0],
    [[0x7f], 1],
    [[0x40, 0x00], 1],
    [[0x01], 7],
    [[0x00], 8],
    [[0x00, 0xff], 8],
    [[0x00, 0x01], 15],
    [[0x00, 0x00, 0x10], 19],
    [[0x00, 0x00, 0x00, 0x00], 32],
    [[0x00, 0x00, 0x00, 0x80, 0x00], 24],
  ];
  for (const [bytes, expected] of cases) {
    test(`[${bytes.map((b) => b.toString(16)).join(", ")}] -> ${expected}`, () => {
      assert.equal(leadingZeroBits(Uint8Array.from(bytes)), expected);
    });
  }

  test("agrees with a bit-by-bit count on real SHA-256 digests", () => {
    for (let i = 0; i < 200; i++) {
      const digest = sha256(`probe-${i}`);
      assert.equal(leadingZeroBits(digest), zeroBitsIndependent(digest));
    }
  });
});

describe("solveChallenge", () => {
  test("returns <challenge>|<nonce> whose SHA-256 meets the difficulty", () => {
    const response = solveChallenge("abc", 10);
    const [challenge, nonce, ...rest] = response.split("|");
    assert.equal(challenge, "abc");
    assert.match(nonce!, /^[A-Za-z0-9]{1,64}$/);
    assert.equal(rest.length, 0);
    assert.ok(zeroBitsIndependent(sha256(response)) >= 10);
  });
});
