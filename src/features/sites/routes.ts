// Site routes: registration and the HMAC secret.
import type { GraphQLData, OperationRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { requestBodies } from "./schemas.ts";
import { sitePath } from "../../rest/route-helpers.ts";

export const registerSite: OperationRoute<GraphQLData, typeof requestBodies.registerSite> = {
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

export const issueSiteSecret: OperationRoute<GraphQLData, typeof requestBodies.issueSiteSecret> = {
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

export const updateSiteSettings: OperationRoute<GraphQLData, typeof requestBodies.updateSiteSettings> = {
  kind: "operation",
  operationId: "updateSiteSettings",
  method: "PATCH",
  path: "/api/v1/sites/{site_id}/settings",
  tag: "Sites",
  summary: "Set the site's page URL pattern (feeds and webhooks link comments to their pages with it).",
  description:
    "page_url_pattern is an http(s) URL with {page_slug} in it; a comment's link is the page's URL plus #comment-<event id>. A pattern declared in [sites.<id>].page_url_pattern cannot be changed here (409 config-declared).",
  auth: "claim",
  params: sitePath,
  body: { schema: requestBodies.updateSiteSettings, optional: false },
  document: `mutation UpdateSiteSettings($siteId: String!, $pageUrlPattern: String) { updateSiteSettings(siteId: $siteId, pageUrlPattern: $pageUrlPattern) { site_id: siteId page_url_pattern: pageUrlPattern } }`,
  variables: (input) => ({ siteId: input.params.site_id, pageUrlPattern: input.body.page_url_pattern }),
  respond: (data) => ({ status: 200, body: data.updateSiteSettings }),
  responses: { 200: { description: "The settings now in force.", schema: ref("SiteSettings") } },
  problems: { 400: ["validation-error"], 409: ["config-declared"], 410: ["site-retired"] },
};

export const siteRoutes: Route[] = [registerSite, issueSiteSecret, updateSiteSettings];
