// Sites as the tests need them: registered through the API, optionally with verified origins.
import assert from "node:assert/strict";
import { uniqueSiteId, type TestService } from "./harness.ts";

/**
 * Registers `siteId` through POST /api/v1/sites and records `verifiedOrigins` as verified
 * (a chosen id writes only from a verified origin; verification is not what the callers
 * test). Its id and claim token.
 */
export async function registerSite(
  service: TestService,
  siteId = uniqueSiteId(),
  verifiedOrigins: readonly string[] = [],
): Promise<{ siteId: string; claimToken: string }> {
  const res = await fetch(`${service.url}/api/v1/sites`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ site_id: siteId }),
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  for (const origin of verifiedOrigins)
    await service.services.db.siteOrigin.create({ data: { siteId, origin, source: "verified" } });
  return { siteId, claimToken: (JSON.parse(text) as { claim_token: string }).claim_token };
}
