// base64url (RFC 4648 section 5): unpadded on output, padding tolerated on input.

const ALPHABET = /^[A-Za-z0-9_-]*={0,2}$/;

export const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");

/** Decodes strictly: returns null for anything that is not canonical base64url. */
export function fromBase64Url(text: string): Buffer | null {
  if (!ALPHABET.test(text)) return null;
  const bare = text.replace(/=+$/, "");
  if (bare.length % 4 === 1) return null;
  const bytes = Buffer.from(bare, "base64url");
  return toBase64Url(bytes) === bare ? bytes : null;
}
