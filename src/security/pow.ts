// Proof-of-work challenges: stateless HMAC-signed tokens, so every instance sharing the
// database (and so the signing secret) can verify them; single use is enforced by the caller
// recording spent challenges.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const POW_ALGORITHM = "sha256-leading-zero-bits";

const NONCE = /^[A-Za-z0-9]{1,64}$/;
const RANDOM_BYTES = 16;
const MAC_BYTES = 32;
// token = base64url(random(16) | expiresAtMs (u64 BE) | difficulty (u8) | HMAC-SHA256 of the rest)
const TOKEN_BYTES = RANDOM_BYTES + 8 + 1 + MAC_BYTES;

export interface Challenge {
  challenge: string;
  difficulty: number;
  expiresAt: Date;
}

const mac = (secret: Buffer, body: Buffer) => createHmac("sha256", secret).update(body).digest();

export function issueChallenge(secret: Buffer, difficulty: number, now: number): Challenge {
  const body = Buffer.alloc(RANDOM_BYTES + 9);
  randomBytes(RANDOM_BYTES).copy(body);
  const expiresAt = now + CHALLENGE_TTL_MS;
  body.writeBigUInt64BE(BigInt(expiresAt), RANDOM_BYTES);
  body.writeUInt8(difficulty, RANDOM_BYTES + 8);
  return {
    challenge: Buffer.concat([body, mac(secret, body)]).toString("base64url"),
    difficulty,
    expiresAt: new Date(expiresAt),
  };
}

/** Number of leading zero bits of `bytes`. */
export function leadingZeroBits(bytes: Uint8Array): number {
  let bits = 0;
  for (const byte of bytes) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

export type ChallengeCheck =
  | { ok: true; challenge: string; expiresAt: Date }
  | { ok: false; reason: "malformed" | "forged" | "expired" | "insufficient-work" };

/** Checks `<challenge>|<nonce>`: issued by us, unexpired, with enough work. Not whether it is spent. */
export function checkChallengeResponse(secret: Buffer, response: string, now: number): ChallengeCheck {
  const bar = response.indexOf("|");
  const challenge = response.slice(0, bar);
  const nonce = response.slice(bar + 1);
  if (bar <= 0 || !NONCE.test(nonce) || !/^[A-Za-z0-9_-]+$/.test(challenge)) return { ok: false, reason: "malformed" };
  const token = Buffer.from(challenge, "base64url");
  if (token.length !== TOKEN_BYTES || token.toString("base64url") !== challenge)
    return { ok: false, reason: "malformed" };
  const body = token.subarray(0, TOKEN_BYTES - MAC_BYTES);
  if (!timingSafeEqual(mac(secret, body), token.subarray(TOKEN_BYTES - MAC_BYTES)))
    return { ok: false, reason: "forged" };
  const expiresAt = Number(body.readBigUInt64BE(RANDOM_BYTES));
  if (now > expiresAt) return { ok: false, reason: "expired" };
  const difficulty = body.readUInt8(RANDOM_BYTES + 8);
  const work = leadingZeroBits(createHash("sha256").update(response, "utf8").digest());
  if (work < difficulty) return { ok: false, reason: "insufficient-work" };
  return { ok: true, challenge, expiresAt: new Date(expiresAt) };
}

/** Finds a nonce for `challenge` (what a client does; used by tests, tools and benchmarks). */
export function solveChallenge(challenge: string, difficulty: number): string {
  for (let i = 0; ; i++) {
    const response = `${challenge}|${i.toString(36)}`;
    if (leadingZeroBits(createHash("sha256").update(response, "utf8").digest()) >= difficulty) return response;
  }
}
