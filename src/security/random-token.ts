// Unguessable tokens the service hands out or keeps: claim tokens, HMAC secrets, verification
// tokens, shared keys. 256 bits, URL-safe.
import { randomBytes } from "node:crypto";

export const randomToken = (): string => randomBytes(32).toString("base64url");
