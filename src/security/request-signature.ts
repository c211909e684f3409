// Site write auth in secret mode: HMAC-SHA256 request signatures from a site's backend.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

export interface SignedRequest {
  method: string;
  /** The request target as sent: path plus `?query` when present. */
  target: string;
  body: Buffer;
  timestamp: string;
}

export const sha256Hex = (data: Buffer | string): string => createHash("sha256").update(data).digest("hex");

export function signRequest(secret: string, request: SignedRequest): string {
  const message = [request.timestamp, request.method.toUpperCase(), request.target, sha256Hex(request.body)].join("\n");
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(message, "utf8").digest("hex");
}

export type SignatureCheck = "ok" | "malformed" | "stale" | "mismatch";

export function checkRequestSignature(
  secret: string,
  request: SignedRequest,
  signature: string,
  nowSeconds: number,
): SignatureCheck {
  if (!/^\d{1,12}$/.test(request.timestamp) || !/^[0-9a-f]{64}$/.test(signature)) return "malformed";
  if (Math.abs(nowSeconds - Number(request.timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return "stale";
  const expected = Buffer.from(signRequest(secret, request), "hex");
  return timingSafeEqual(expected, Buffer.from(signature, "hex")) ? "ok" : "mismatch";
}
