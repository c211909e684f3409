// Idempotency-Key parsing and request fingerprints.
import { createHash } from "node:crypto";

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * Accepts the key as a bare token or as a structured-field string ("…"), as the IETF draft
 * writes it; 1-255 visible ASCII characters. Returns null when invalid.
 */
export function parseIdempotencyKey(header: string): string | null {
  const quoted = /^"(.*)"$/.exec(header);
  const key = quoted ? quoted[1]! : header;
  return /^[\x21-\x7e]{1,255}$/.test(key) && !(quoted && /["\\]/.test(key)) ? key : null;
}

/** What makes two requests "the same request": method, target and body hash (plus upload metadata). */
export function requestFingerprint(
  method: string,
  target: string,
  body: Buffer,
  extra: readonly string[] = [],
): string {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return createHash("sha256")
    .update([method.toUpperCase(), target, bodyHash, ...extra].join("\n"))
    .digest("hex");
}
