// Author proofs: Ed25519 signatures over canonical JSON arrays. Each operation declares its own
// array (the wire contract; clients build the same ones byte for byte); this is the generic part.
import sodium from "sodium-native";
import { fromBase64Url } from "./base64url.ts";
import type { FieldError } from "../core/errors.ts";

/** The bytes that are signed: compact JSON exactly as JavaScript's JSON.stringify writes it. */
export const canonicalMessage = (array: readonly unknown[]): Buffer => Buffer.from(JSON.stringify(array), "utf8");

export interface AuthorKey {
  /** The key as the client sent it, normalized to unpadded base64url. */
  text: string;
  bytes: Buffer;
}

/** Parses a base64url Ed25519 public key (32 bytes). */
export function parsePublicKey(text: unknown): AuthorKey | null {
  if (typeof text !== "string") return null;
  const bytes = fromBase64Url(text);
  if (!bytes || bytes.length !== sodium.crypto_sign_PUBLICKEYBYTES) return null;
  return { text: bytes.toString("base64url"), bytes };
}

/** Parses a base64url detached Ed25519 signature (64 bytes). */
export function parseSignature(text: unknown): Buffer | null {
  if (typeof text !== "string") return null;
  const bytes = fromBase64Url(text);
  return bytes && bytes.length === sodium.crypto_sign_BYTES ? bytes : null;
}

export interface ParsedProof {
  key: AuthorKey;
  signature: Buffer;
  challengeResponse: string;
}

/** Reads the three author-proof fields, reporting every malformed one. */
export function parseAuthorProof(fields: {
  author_public_key?: unknown;
  author_signature?: unknown;
  challenge_response?: unknown;
}): ParsedProof | FieldError[] {
  const errors: FieldError[] = [];
  const key = parsePublicKey(fields.author_public_key);
  if (!key) errors.push({ field: "author_public_key", message: "must be a base64url Ed25519 public key (32 bytes)" });
  const signature = parseSignature(fields.author_signature);
  if (!signature)
    errors.push({ field: "author_signature", message: "must be a base64url Ed25519 signature (64 bytes)" });
  const challengeResponse = fields.challenge_response;
  if (typeof challengeResponse !== "string" || !challengeResponse.includes("|")) {
    errors.push({ field: "challenge_response", message: "must be <challenge>|<nonce>" });
  }
  if (errors.length > 0) return errors;
  return { key: key!, signature: signature!, challengeResponse: challengeResponse as string };
}

export function verifySignature(publicKey: Buffer, signature: Buffer, array: readonly unknown[]): boolean {
  return sodium.crypto_sign_verify_detached(signature, canonicalMessage(array), publicKey);
}
