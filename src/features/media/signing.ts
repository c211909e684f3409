// Signed media proxy URLs (pure): the HMAC that lets GET /api/v1/media/{server}/{media_id}
// serve only what this service handed out, and only for 15 minutes.
//
// The signed message is `server/media_id/width/height/method/expires`. Absent thumbnail
// parameters are signed as their defaults: width and height as the empty string, method as
// "scale" (the API's default method). So an original (no thumbnail) signs
// `server/id///scale/expires`, and `?method=scale` on it signs the same as no method at all.
import { createHmac, timingSafeEqual } from "node:crypto";
import { fromBase64Url, toBase64Url } from "../../security/base64url.ts";

/** How long a signed URL is valid. */
export const MEDIA_URL_VALIDITY_SECONDS = 15 * 60;

/** Thumbnail width and height bounds (both inclusive). */
export const MAX_THUMBNAIL_SIDE = 4096;

export const THUMBNAIL_METHODS = ["crop", "scale"] as const;
export type ThumbnailMethod = (typeof THUMBNAIL_METHODS)[number];

/** The method an absent `method` parameter means, and is signed as. */
export const DEFAULT_THUMBNAIL_METHOD: ThumbnailMethod = "scale";

export interface Thumbnail {
  width: number;
  height: number;
  method: ThumbnailMethod;
}

/** What one proxy URL serves: a homeserver's media, whole (thumbnail null) or as a thumbnail. */
export interface MediaTarget {
  server: string;
  mediaId: string;
  thumbnail: Thumbnail | null;
}

/** `[A-Za-z0-9_-]`, 1-255 bytes (the characters are ASCII, so bytes = characters). */
export const MEDIA_ID_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;

export function signingMessage(target: MediaTarget, expires: number): string {
  const { width, height, method } = target.thumbnail ?? { width: "", height: "", method: DEFAULT_THUMBNAIL_METHOD };
  return `${target.server}/${target.mediaId}/${width}/${height}/${method}/${expires}`;
}

/** The `sig` query parameter: unpadded base64url of HMAC-SHA256(key, signingMessage). */
export function mediaSignature(key: Buffer, target: MediaTarget, expires: number): string {
  return toBase64Url(hmac(key, target, expires));
}

/**
 * Bucketed to whole minutes, so every read within one minute hands out the same URL (cacheable
 * read bodies, CDN-friendly URLs): the URL stays valid 14-15 minutes.
 */
export function expiryFor(nowMs: number): number {
  return (Math.floor(nowMs / 60_000) + MEDIA_URL_VALIDITY_SECONDS / 60) * 60;
}

export type SignatureCheck = "valid" | "invalid" | "expired";

/**
 * Whether `sig` is this service's signature of `target` until `expires`. A forged signature is
 * "invalid" whatever its expiry; a genuine one is "expired" from `expires` on. An expiry further
 * out than this service ever signs cannot be genuine (it would outlive the validity).
 */
export function checkMediaSignature(
  key: Buffer,
  target: MediaTarget,
  expires: number,
  sig: string,
  nowMs: number,
): SignatureCheck {
  const presented = fromBase64Url(sig);
  const expected = hmac(key, target, expires);
  if (!presented || presented.length !== expected.length || !timingSafeEqual(presented, expected)) return "invalid";
  if (expires > expiryFor(nowMs)) return "invalid";
  return nowMs >= expires * 1000 ? "expired" : "valid";
}

function hmac(key: Buffer, target: MediaTarget, expires: number): Buffer {
  return createHmac("sha256", key).update(signingMessage(target, expires)).digest();
}
