// The operator's view and administration of sites: every tracked site merged with the [sites]
// overlay, origin revocation, secret and claim-token rotation, config snippets. What [sites]
// declares (origins, a secret) is managed in the configuration file, never through the API.
import type { SiteDeclaration } from "../../config/config.ts";
import { siteDeclarationToml } from "../../config/site-snippet.ts";
import { normalizeOrigin } from "../../security/origin.ts";
import { DomainError, notFound, validationError } from "../../core/errors.ts";
import { checkPagination } from "../../core/pagination.ts";
import { checkPath, hashClaimToken, type Sites } from "../sites/sites.ts";
import { randomToken } from "../../security/random-token.ts";
import type { SiteRow } from "../sites/site-store.ts";

export interface OperatorSiteDeps {
  /** Its overlay, and its store for the queries. */
  sites: Sites;
}

export interface OperatorSite {
  siteId: string;
  source: string;
  status: string;
  idGenerated: boolean;
  verified: boolean;
  verifiedOrigins: { origin: string; source: string }[];
  secretSource: "api" | "config" | null;
  spaceRoomId: string | null;
  createdAt: Date;
}

export async function listOperatorSites(
  deps: OperatorSiteDeps,
  input: { page: number; perPage: number; siteId: string | null },
) {
  checkPagination(input.page, input.perPage);
  if (input.siteId !== null) checkPath(input.siteId);
  // Declared sites are always among the rows: syncDeclarations creates them at start and
  // retirement refuses them.
  const { total, rows } = await deps.sites.store.page(input.siteId, (input.page - 1) * input.perPage, input.perPage);
  return { data: rows.map((row) => view(deps, row)), meta: { total, page: input.page, perPage: input.perPage } };
}

export async function revokeOrigin(deps: OperatorSiteDeps, siteId: string, origin: string): Promise<OperatorSite> {
  const normalized = normalizeOrigin(origin);
  if (!normalized)
    throw validationError("origin must be an origin (scheme://host[:port]).", [
      { field: "origin", message: "must be scheme://host[:port]" },
    ]);
  await requireSite(deps, siteId);
  deps.sites.requireRevocableOrigin(siteId, normalized);
  if (!(await deps.sites.store.deleteOrigin(siteId, normalized)))
    throw notFound("origin-not-found", `Origin ${normalized} is not an origin of site ${siteId}.`);
  return view(deps, await requireSite(deps, siteId));
}

/** A new API secret (shown once); the site's writes need HMAC signatures from now on. */
export async function rotateSecret(
  deps: OperatorSiteDeps,
  siteId: string,
): Promise<{ siteId: string; secret: string }> {
  await requireApiSecret(deps, siteId);
  const secret = randomToken();
  await deps.sites.store.replaceSecret(siteId, secret);
  return { siteId, secret };
}

/** Drops the API secret: the site's writes are authorized by Origin again. */
export async function removeSecret(deps: OperatorSiteDeps, siteId: string): Promise<OperatorSite> {
  await requireApiSecret(deps, siteId);
  return view(deps, await deps.sites.store.removeSecret(siteId));
}

/** A new claim token (shown once); only its hash is stored, so the old token stops working at once. */
export async function rotateClaimToken(
  deps: OperatorSiteDeps,
  siteId: string,
): Promise<{ siteId: string; claimToken: string }> {
  checkPath(siteId);
  const claimToken = randomToken();
  // Conditional on the status, so a retirement (which invalidates the token) cannot be undone.
  if (!(await deps.sites.store.setClaimTokenHash(siteId, hashClaimToken(claimToken)))) {
    await requireSite(deps, siteId);
    throw new DomainError("site-retired", 410, `Site ${siteId} is retired; its claim token cannot be renewed.`);
  }
  return { siteId, claimToken };
}

/** The site's origins and secret as a [sites.<id>] table, for moving it into the configuration. */
export async function configSnippet(deps: OperatorSiteDeps, siteId: string): Promise<{ siteId: string; toml: string }> {
  const site = await requireSite(deps, siteId);
  const declaration: SiteDeclaration = {
    siteId,
    origins: view(deps, site).verifiedOrigins.map((o) => o.origin),
    secret: deps.sites.secretOf(site),
    pageUrlPattern: deps.sites.pageUrlPatternOf(site),
    // Webhook endpoints registered through the API stay in the database (their secrets are not shown again).
    webhooks: [],
  };
  return { siteId, toml: siteDeclarationToml(declaration) };
}

function view(deps: OperatorSiteDeps, site: SiteRow): OperatorSite {
  const declaration = deps.sites.declared.get(site.id);
  // The overlay wins: an origin [sites] declares is listed as config even if it was verified first.
  const origins = new Map(site.origins.map((o) => [o.origin, o.source]));
  for (const origin of declaration?.origins ?? []) origins.set(origin, "config");
  const verifiedOrigins = [...origins.keys()].sort().map((origin) => ({ origin, source: origins.get(origin)! }));
  return {
    siteId: site.id,
    source: declaration ? "config" : site.source,
    status: site.status,
    idGenerated: site.idGenerated,
    // Ownership is proven by the declaration or by a verified origin (src/features/sites/site-write-auth.ts).
    verified: declaration !== undefined || site.origins.some((o) => o.source === "verified"),
    verifiedOrigins,
    secretSource: declaration?.secret ? "config" : site.hmacSecret ? "api" : null,
    spaceRoomId: site.spaceRoomId,
    createdAt: site.createdAt,
  };
}

async function requireSite(deps: OperatorSiteDeps, siteId: string): Promise<SiteRow> {
  checkPath(siteId);
  const site = await deps.sites.store.find(siteId);
  if (!site) throw notFound("site-not-found", `Site ${siteId} is not registered.`);
  return site;
}

/** The site exists and its secret is not the one [sites] declares. */
async function requireApiSecret(deps: OperatorSiteDeps, siteId: string): Promise<void> {
  await requireSite(deps, siteId);
  deps.sites.requireReplaceableSecret(siteId);
}
