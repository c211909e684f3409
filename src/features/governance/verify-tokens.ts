// Role-claim verify tokens (pure): `<claim id>.<secret>`. The id finds the claim; only a SHA-256
// hash of the whole token is stored, and the presented token's hash is compared with it in
// constant time. Single use is the claim's status, not the token's.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { randomToken } from "../../security/random-token.ts";

/** How long a pending claim's verify token is valid. */
export const VERIFY_TOKEN_TTL_HOURS = 24;

const TOKEN = /^([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/;

export const hashVerifyToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

/** A new claim id and its verify token (shown once) with the hash to store. */
export function issueVerifyToken(): { claimId: string; token: string; tokenHash: string } {
  const claimId = randomBytes(12).toString("hex");
  const token = `${claimId}.${randomToken()}`;
  return { claimId, token, tokenHash: hashVerifyToken(token) };
}

/** The claim id a well-formed token names; null for anything else. */
export function claimIdOf(token: string): string | null {
  return TOKEN.exec(token)?.[1] ?? null;
}

/** Whether `token` is the one whose hash is stored, compared in constant time. */
export function verifyTokenMatches(token: string, storedHash: string): boolean {
  const presented = Buffer.from(hashVerifyToken(token), "hex");
  const stored = Buffer.from(storedHash, "hex");
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
