// Site write auth: a visitor write is accepted from one of the site's origins, or, in secret
// mode, only with a valid HMAC request signature from the site's backend.
import { forbidden } from "./errors.ts";
import type { Sites } from "./sites.ts";
import type { RequestInfo } from "./request.ts";
import { normalizeOrigin } from "../security/origin.ts";
import { checkRequestSignature } from "../security/request-signature.ts";

export function authorizeSiteWrite(
  site: { id: string; origins: { origin: string }[] },
  secret: string | null,
  request: RequestInfo | null,
  nowSeconds = Math.floor(Date.now() / 1000),
): void {
  if (!request) throw forbidden("origin-not-allowed", "Visitor writes need an HTTP request with an allowed Origin or a request signature.");
  if (secret !== null) {
    const timestamp = request.headers["x-service-timestamp"];
    const signature = request.headers["x-service-signature"];
    if (!timestamp || !signature) {
      throw forbidden("signature-required", `Site ${site.id} requires X-Service-Timestamp and X-Service-Signature on writes.`);
    }
    const verdict = checkRequestSignature(secret, { method: request.method, target: request.target, body: request.rawBody, timestamp }, signature, nowSeconds);
    if (verdict === "ok") return;
    const why = { malformed: "is malformed", stale: "timestamp is outside the ±5 minute window", mismatch: "does not match" }[verdict];
    throw forbidden("invalid-request-signature", `The request signature ${why}.`);
  }
  const origin = normalizeOrigin(request.headers.origin ?? "");
  if (!origin || !site.origins.some((o) => o.origin === origin)) {
    throw forbidden("origin-not-allowed", `Origin ${request.headers.origin ?? "(none)"} may not write to site ${site.id}.`);
  }
}

/** The site-write gate of the route table: the site exists, is writable, and the request may write to it. */
export async function requireSiteWrite(sites: Sites, siteId: string, pageSlug: string | undefined, request: RequestInfo): Promise<void> {
  const site = await sites.requireWritable(siteId, pageSlug);
  authorizeSiteWrite(site, sites.secretOf(site), request);
}
