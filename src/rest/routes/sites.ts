// Site routes: registration (verification, secrets and retirement come with the sites issue).
import type { OperationRoute } from "../route.ts";
import { ref, requestBodies } from "../schemas.ts";

export const registerSite: OperationRoute = {
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
  variables: (input) => ({ siteId: (input.body.site_id as string | undefined) ?? null }),
  respond: (data) => ({ status: 201, body: data.registerSite }),
  responses: { 201: { description: "Registered.", schema: ref("SiteRegistration") } },
  problems: { 400: ["validation-error"], 409: ["site-id-taken"], 429: ["rate-limited"] },
};
