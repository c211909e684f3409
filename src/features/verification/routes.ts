// Origin verification routes: start (claim) hands out a token and where to publish it,
// confirm (public) looks for it and records the origin.
import type { GraphQLData, OperationRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { requestBodies } from "./schemas.ts";
import { sitePath } from "../../rest/route-helpers.ts";
import { MAX_CONFIRM_ATTEMPTS, VERIFICATION_TTL_HOURS } from "./verifications.ts";
import { WELL_KNOWN_LIMITS } from "./well-known.ts";

export const startVerification: OperationRoute<GraphQLData, typeof requestBodies.startVerification> = {
  kind: "operation",
  operationId: "startVerification",
  method: "POST",
  path: "/api/v1/sites/{site_id}/verifications",
  tag: "Sites",
  summary: "Start verifying an origin: a token to publish, and where to publish it.",
  description:
    `The token is valid for ${VERIFICATION_TTL_HOURS} hours and ${MAX_CONFIRM_ATTEMPTS} confirm attempts; a new start for the same origin replaces it (and its attempts). ` +
    'Methods: well-known (serve `{origin}/.well-known/service.json` as `{"site_id": <id>, "token": <token>}` or `{"sites": {<id>: <token>, …}}`) and ' +
    "dns-txt (a TXT record `service-verification=<token>` at `_service.<host>`; not for IP-address origins). " +
    "400 private-origin: an IP-address origin that is not public (loopback, private, link-local, unique-local, CGNAT, multicast, also IPv4-mapped) unless `security.allow_private_verification_origins = true`. " +
    "410 site-retired: the site is retiring.",
  auth: "claim",
  rateLimit: "verificationStart",
  params: sitePath,
  body: { schema: requestBodies.startVerification, optional: false },
  document: `mutation StartVerification($siteId: String!, $origin: String!, $methods: [String!]) {
    startOriginVerification(siteId: $siteId, origin: $origin, methods: $methods) { origin token expires_at: expiresAt methods instructions }
  }`,
  variables: (input) => ({
    siteId: input.params.site_id,
    origin: input.body.origin,
    methods: input.body.methods ?? null,
  }),
  respond: (data) => ({ status: 200, body: data.startOriginVerification }),
  responses: { 200: { description: "The pending verification.", schema: ref("VerificationStart") } },
  problems: { 400: ["validation-error", "private-origin"], 404: ["site-not-found"] },
};

export const confirmVerification: OperationRoute<GraphQLData, typeof requestBodies.confirmVerification> = {
  kind: "operation",
  operationId: "confirmVerification",
  method: "POST",
  path: "/api/v1/sites/{site_id}/verifications/confirm",
  tag: "Sites",
  summary: "Look for the published token; on the first method that finds it the origin is verified.",
  description:
    `Tries the started methods in order. The well-known fetch connects only to public addresses (unless \`security.allow_private_verification_origins = true\`): ` +
    `the host is resolved once and every address checked, redirects must stay on the origin (at most ${WELL_KNOWN_LIMITS.maxRedirects}), ` +
    `the connection must open within ${WELL_KNOWN_LIMITS.connectMs / 1000} s and the answer arrive within ${WELL_KNOWN_LIMITS.totalMs / 1000} s, ` +
    `status 200, Content-Type application/json, at most ${WELL_KNOWN_LIMITS.maxBytes / 1024} KiB. ` +
    `Each confirm spends one of the token's ${MAX_CONFIRM_ATTEMPTS} attempts. ` +
    "403 verification-failed: no method found the token; the detail gives each method's reason. " +
    "404 verification-not-found: no verification of this origin is pending (never started, or already confirmed). " +
    `409 verification-attempts-exhausted: ${MAX_CONFIRM_ATTEMPTS} attempts are spent; start again. ` +
    `410 verification-expired: the token is older than ${VERIFICATION_TTL_HOURS} hours; start again. 410 site-retired: the site is retiring.`,
  auth: "public",
  rateLimit: "verificationConfirm",
  params: sitePath,
  body: { schema: requestBodies.confirmVerification, optional: false },
  document: `mutation ConfirmVerification($siteId: String!, $origin: String!) {
    confirmOriginVerification(siteId: $siteId, origin: $origin) { site_id: id verified_origins: verifiedOrigins }
  }`,
  variables: (input) => ({ siteId: input.params.site_id, origin: input.body.origin }),
  respond: (data) => ({ status: 200, body: data.confirmOriginVerification }),
  responses: { 200: { description: "The origin is verified; the site's origins.", schema: ref("VerifiedOrigins") } },
  problems: {
    400: ["validation-error"],
    403: ["verification-failed"],
    404: ["site-not-found", "verification-not-found"],
    409: ["verification-attempts-exhausted"],
    410: ["verification-expired", "site-retired"],
  },
};

export const verificationRoutes: Route[] = [startVerification, confirmVerification];
