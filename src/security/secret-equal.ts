// Comparing a presented secret (operator token, homeserver token) with the configured one.
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * Constant-time equality of two secrets. Both are hashed first: the digests have a fixed length
 * whatever was sent (a non-ASCII token of the right UTF-16 length has more bytes, which
 * timingSafeEqual would throw on), and the time taken says nothing about the expected length.
 */
export const secretsEqual = (presented: string, expected: string): boolean =>
  timingSafeEqual(digest(presented), digest(expected));
