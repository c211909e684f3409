// The session cookie of the same-origin dashboard (pure): HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), Secure when the service is served over HTTPS.
import type { RequestInfo } from "../../core/request.ts";
import { SESSION_COOKIE } from "./sessions.ts";

export function sessionCookieHeader(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** The Set-Cookie that ends the cookie at once (signing out). */
export const clearedSessionCookie = (secure: boolean): string => sessionCookieHeader("", 0, secure);

/** HTTPS as the browser sees it: the public base URL's scheme, else a trusted proxy's X-Forwarded-Proto. */
export function servedOverHttps(publicBaseUrl: string | null, request: RequestInfo | null): boolean {
  if (publicBaseUrl) return publicBaseUrl.startsWith("https:");
  return request?.viaTrustedProxy === true && request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() === "https";
}
