// Operator site routes: the site listing with the [sites] overlay, origin revocation, secret
// and claim-token rotation, config snippets; plus the alternate forms of the earlier revision.
import type { OperationRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { requestBodies } from "./schemas.ts";
import { alternate, sitePath } from "../../rest/route-helpers.ts";

const SITES = "/api/v1/operator/sites";
const SITE = `${SITES}/{site_id}`;

const OPERATOR_SITE = `{
  site_id: siteId source status id_generated: idGenerated verified
  verified_origins: verifiedOrigins { origin source }
  has_secret: hasSecret secret_source: secretSource space_room_id: spaceRoomId created_at: createdAt
}`;

type OperatorRouteSpec = Omit<OperationRoute, "kind" | "tag" | "auth" | "rateLimit">;

const operatorRoute = (spec: OperatorRouteSpec): OperationRoute => ({
  kind: "operation",
  tag: "Operator",
  auth: "operator",
  rateLimit: "operator",
  ...spec,
});

const siteVariables = (input: { params: Record<string, string> }) => ({ siteId: input.params.site_id });

export const operatorListSites = operatorRoute({
  operationId: "operatorListSites",
  method: "QUERY",
  path: SITES,
  summary: "Every tracked site merged with the [sites] overlay, by site id.",
  description: "Declared sites are always listed. site_id narrows the list to that site.",
  body: { schema: requestBodies.listOperatorSites, optional: true },
  document: `query OperatorSites($page: Int, $perPage: Int, $siteId: String) {
    operatorSites(page: $page, perPage: $perPage, siteId: $siteId) {
      data ${OPERATOR_SITE}
      meta { total page per_page: perPage total_pages: totalPages }
    }
  }`,
  variables: (input) => ({ page: input.body.page, perPage: input.body.per_page, siteId: input.body.site_id ?? null }),
  respond: (data) => ({ status: 200, body: data.operatorSites }),
  responses: { 200: { description: "One page of sites.", schema: ref("OperatorSitePage") } },
  problems: { 400: ["validation-error"] },
});

export const operatorRevokeOrigin = operatorRoute({
  operationId: "operatorRevokeOrigin",
  method: "POST",
  path: `${SITE}/origin-revocations`,
  summary: "Revoke a verified origin of a site.",
  description:
    "Origins declared in [sites] cannot be revoked (409 config-declared); an origin the site does not have is 404 origin-not-found.",
  params: sitePath,
  body: { schema: requestBodies.revokeOrigin, optional: false },
  document: `mutation OperatorRevokeOrigin($siteId: String!, $origin: String!) { operatorRevokeOrigin(siteId: $siteId, origin: $origin) ${OPERATOR_SITE} }`,
  variables: (input) => ({ siteId: input.params.site_id, origin: input.body.origin }),
  respond: (data) => ({ status: 200, body: data.operatorRevokeOrigin }),
  responses: { 200: { description: "The updated site.", schema: ref("OperatorSite") } },
  problems: { 400: ["validation-error"], 404: ["site-not-found", "origin-not-found"], 409: ["config-declared"] },
});

export const operatorRotateSecret = operatorRoute({
  operationId: "operatorRotateSecret",
  method: "POST",
  path: `${SITE}/secret-rotations`,
  summary: "Issue or replace a site's HMAC secret; shown once.",
  description:
    "From now on the site's writes must carry the HMAC request signature. A secret declared in [sites] cannot be replaced (409 config-declared).",
  params: sitePath,
  document: `mutation OperatorRotateSecret($siteId: String!) { operatorRotateSecret(siteId: $siteId) { site_id: siteId secret } }`,
  variables: siteVariables,
  respond: (data) => ({ status: 200, body: data.operatorRotateSecret }),
  responses: { 200: { description: "The new secret.", schema: ref("SiteSecret") } },
  problems: { 404: ["site-not-found"], 409: ["config-declared"] },
});

export const operatorRemoveSecret = operatorRoute({
  operationId: "operatorRemoveSecret",
  method: "DELETE",
  path: `${SITE}/secret`,
  summary: "Remove a site's HMAC secret; origin auth applies again.",
  description:
    "Answers the updated site (has_secret false). Removing an absent secret succeeds. A secret declared in [sites] cannot be removed (409 config-declared).",
  params: sitePath,
  document: `mutation OperatorRemoveSecret($siteId: String!) { operatorRemoveSecret(siteId: $siteId) ${OPERATOR_SITE} }`,
  variables: siteVariables,
  respond: (data) => ({ status: 200, body: data.operatorRemoveSecret }),
  responses: { 200: { description: "The updated site.", schema: ref("OperatorSite") } },
  problems: { 404: ["site-not-found"], 409: ["config-declared"] },
});

export const operatorRotateClaimToken = operatorRoute({
  operationId: "operatorRotateClaimToken",
  method: "POST",
  path: `${SITE}/claim-token-rotations`,
  summary: "Issue a new claim token for a site; shown once, the old one stops working at once.",
  description: "Also gives a config-declared site a claim token. A retiring site gets none (410 site-retired).",
  params: sitePath,
  document: `mutation OperatorRotateClaimToken($siteId: String!) { operatorRotateClaimToken(siteId: $siteId) { site_id: siteId claim_token: claimToken } }`,
  variables: siteVariables,
  respond: (data) => ({ status: 200, body: data.operatorRotateClaimToken }),
  responses: { 200: { description: "The new claim token.", schema: ref("SiteClaimToken") } },
  problems: { 404: ["site-not-found"], 410: ["site-retired"] },
});

export const operatorGetConfigSnippet = operatorRoute({
  operationId: "operatorGetConfigSnippet",
  method: "GET",
  path: `${SITE}/config-snippet`,
  summary: "The site as a [sites.<site_id>] TOML table, to move it into the configuration.",
  params: sitePath,
  document: `query SiteConfigSnippet($siteId: String!) { siteConfigSnippet(siteId: $siteId) { site_id: siteId toml } }`,
  variables: siteVariables,
  respond: (data) => ({ status: 200, body: data.siteConfigSnippet }),
  responses: { 200: { description: "The snippet.", schema: ref("SiteConfigSnippet") } },
  problems: { 404: ["site-not-found"] },
});

export const operatorRevokeOriginAlternate = alternate(operatorRevokeOrigin, `${SITE}/origins/revoke`);
export const operatorRotateSecretAlternate = alternate(operatorRotateSecret, `${SITE}/secret/rotate`);
export const operatorRotateClaimTokenAlternate = alternate(operatorRotateClaimToken, `${SITE}/claim-token/rotate`);

export const operatorRoutes: Route[] = [
  ...[
    operatorListSites,
    operatorRevokeOrigin,
    operatorRevokeOriginAlternate,
    operatorRotateSecret,
    operatorRotateSecretAlternate,
    operatorRemoveSecret,
  ],
  ...[operatorRotateClaimToken, operatorRotateClaimTokenAlternate, operatorGetConfigSnippet],
];
