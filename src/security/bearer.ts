// The one reading of an Authorization header: `Bearer <token>` exactly as the API documents it
// (one space, RFC 6750's b64token), or absent. A header that is present but anything else is
// refused, never read as no credential (which would run the request as anonymous) nor loosely
// (which would make `bearer x` or `Bearer  x` one credential or another).
import { forbidden } from "../core/errors.ts";

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

export const malformedAuthorization = () =>
  forbidden(
    "malformed-authorization",
    "The Authorization header must be `Bearer <token>` (one space, nothing after the token), or absent.",
  );

/** The bearer token of an Authorization header; null when there is none; throws 403 malformed-authorization otherwise. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) throw malformedAuthorization();
  return token;
}
