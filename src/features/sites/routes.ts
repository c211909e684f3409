// Site routes: registration and the HMAC secret.
import type { OperationRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { requestBodies } from "./schemas.ts";
import { sitePath } from "../../rest/route-helpers.ts";

export const registerSite: OperationRoute<any, typeof requestBodies.registerSite> = {
  kind: "operation",
  operationId: "registerSite",
  method: "POST",
  path: "/api/v1/sites",
  tag: "Sites",
  summary: "Register a site; the claim token is returned once.",
  auth: "public",
  rateLimit: "siteRegistration",
  body: { schema: requestBodies.registerSite, optional: true },
  document: `mutation RegisterSite($siteId: String) { registerSite(siteId: $siteId) { site_id: siteId claim_token: claimToken } }`,
  variables: (input) => ({ siteId: input.body.site_id ?? null }),
  respond: (data) => ({ status: 201, body: data.registerSite }),
  responses: { 201: { description: "Registered.", schema: ref("SiteClaimToken") } },
  problems: { 400: ["validation-error"], 409: ["site-id-taken"], 429: ["rate-limited"] },
};

export const issueSiteSecret: OperationRoute<any, typeof requestBodies.issueSiteSecret> = {
  kind: "operation",
  operationId: "issueSiteSecret",
  method: "POST",
  path: "/api/v1/sites/{site_id}/secret",
  tag: "Sites",
  summary: "Issue (or with rotate: true replace) the site's HMAC secret; it is returned once.",
  description:
    "The site must have a verified origin first (409 site-not-verified). Without `rotate: true` an existing secret is 409 secret-exists; a secret declared in [sites] cannot be replaced (409 config-declared). Once a site has a secret, its writes must carry the HMAC request signature.",
  auth: "claim",
  params: sitePath,
  body: { schema: requestBodies.issueSiteSecret, optional: true },
  document: `mutation IssueSiteSecret($siteId: String!, $rotate: Boolean) { issueSiteSecret(siteId: $siteId, rotate: $rotate) { site_id: siteId secret } }`,
  variables: (input) => ({ siteId: input.params.site_id, rotate: input.body.rotate ?? false }),
  respond: (data) => ({ status: 200, body: data.issueSiteSecret }),
  responses: { 200: { description: "The secret, shown once.", schema: ref("SiteSecret") } },
  problems: { 400: ["validation-error"], 409: ["site-not-verified", "secret-exists", "config-declared"] },
};

export const siteRoutes: Route[] = [registerSite, issueSiteSecret];
