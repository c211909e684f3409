// Sites: registration, ownership (claim tokens, HMAC secrets), the [sites] configuration
// overlay, and the checks every write makes.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import { isPageUrlPattern, type SiteDeclaration } from "../../config/config.ts";
import { DomainError, forbidden, notFound, validationError } from "../../core/errors.ts";
import { normalizeOrigin } from "../../security/origin.ts";
import { isValidPageSlug, isValidSiteId } from "../../core/identifiers.ts";
import { randomToken } from "../../security/random-token.ts";
import { SiteStore, type SiteWithOrigins } from "./site-store.ts";

export type { SiteWithOrigins } from "./site-store.ts";

export const hashClaimToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

export class Sites {
  /** The [sites] overlay by site id. */
  readonly declared: Map<string, SiteDeclaration>;

  /** The Site aggregate's queries, shared with the operator feature, room reads and the GraphQL site fields. */
  readonly store: SiteStore;

  constructor(db: Db, declarations: SiteDeclaration[]) {
    this.store = new SiteStore(db);
    this.declared = new Map(declarations.map((d) => [d.siteId, d]));
  }

  /**
   * Brings the database in line with [sites]: declared sites exist with exactly their
   * configured origins; a site whose declaration was removed loses its config origins (it has
   * no ownership proof, so it stops accepting writes until an origin is verified).
   */
  async syncDeclarations(): Promise<void> {
    for (const decl of this.declared.values()) await this.store.syncDeclaration(decl);
    await this.store.dropConfigOriginsExcept([...this.declared.keys()]);
  }

  /** Registers a site under `requestedId`, or a generated 32-hex id. The claim token is returned once. */
  async register(requestedId: string | null): Promise<{ siteId: string; claimToken: string }> {
    if (requestedId !== null && !isValidSiteId(requestedId)) {
      throw validationError("site_id must be 1-64 characters of [a-z0-9-]", [
        { field: "site_id", message: "must match ^[a-z0-9-]{1,64}$" },
      ]);
    }
    const siteId = requestedId ?? randomBytes(16).toString("hex");
    const claimToken = randomToken();
    if (this.declared.has(siteId)) throw siteTaken(siteId);
    try {
      await this.store.createRegistered(siteId, requestedId === null, hashClaimToken(claimToken));
    } catch (err) {
      throw isUniqueViolation(err) ? siteTaken(siteId) : err;
    }
    return { siteId, claimToken };
  }

  async find(siteId: string): Promise<SiteWithOrigins | null> {
    return this.store.find(siteId);
  }

  /** The site for a public read: 400 for a malformed id, 404 when not registered. */
  async requireReadable(siteId: string, pageSlug?: string): Promise<{ id: string; status: string }> {
    checkPath(siteId, pageSlug);
    const site = await this.store.status(siteId);
    if (!site) throw siteNotFound(siteId);
    return site;
  }

  /** The site for a write, with its origins: additionally 410 once it (or the page) is retiring. */
  async requireWritable(siteId: string, pageSlug?: string): Promise<SiteWithOrigins> {
    checkPath(siteId, pageSlug);
    const found = await this.store.forWrite(siteId, pageSlug ?? null);
    if (!found) throw siteNotFound(siteId);
    const { site, pageRetiring } = found;
    if (site.status !== "active")
      throw new DomainError("site-retired", 410, `Site ${siteId} is retired and accepts no writes.`);
    if (pageRetiring)
      throw new DomainError("page-retired", 410, `Page ${siteId}/${pageSlug} is retired and accepts no writes.`);
    return site;
  }

  /** The HMAC secret that puts the site in strict (secret) mode, if any. */
  secretOf(site: SiteWithOrigins): string | null {
    return this.declared.get(site.id)?.secret ?? site.hmacSecret;
  }

  /** Where the site's pages live ({page_slug} in it), as [sites] declares it or the owner set it; null: not known. */
  pageUrlPatternOf(site: { id: string; pageUrlPattern: string | null }): string | null {
    return this.declared.get(site.id)?.pageUrlPattern ?? site.pageUrlPattern;
  }

  /** The site's page URL pattern in force (declared, else the owner's); null: none, or no such site. */
  async pageUrlPatternFor(siteId: string): Promise<string | null> {
    return this.declared.get(siteId)?.pageUrlPattern ?? (await this.store.pageUrlPattern(siteId)) ?? null;
  }

  /** The owner's settings: the page URL pattern (null removes it). A pattern declared in [sites] cannot be changed. */
  async updateSettings(
    siteId: string,
    pageUrlPattern: string | null,
  ): Promise<{ siteId: string; pageUrlPattern: string | null }> {
    checkPath(siteId);
    if (pageUrlPattern !== null && !isPageUrlPattern(pageUrlPattern))
      throw validationError("page_url_pattern must be an http(s) URL with {page_slug} in it.", [
        { field: "page_url_pattern", message: "an http(s) URL containing {page_slug}" },
      ]);
    if (this.declared.get(siteId)?.pageUrlPattern)
      throw configDeclared(
        `The page URL pattern of site ${siteId} is declared in [sites]; change it in the configuration.`,
      );
    if (!(await this.store.setPageUrlPattern(siteId, pageUrlPattern))) {
      await this.requireWritable(siteId);
      throw siteNotFound(siteId);
    }
    return { siteId, pageUrlPattern };
  }

  isDeclared(siteId: string): boolean {
    return this.declared.has(siteId);
  }

  /**
   * The claim auth of the route table (and of any other caller acting for a site's owner):
   * 404 for an unregistered site; 403 for a missing or wrong token, and for every token of a
   * site that is retiring or has none (a config-declared site).
   */
  async requireClaim(siteId: string, token: string | undefined): Promise<SiteWithOrigins> {
    checkPath(siteId);
    const site = await this.find(siteId);
    if (!site) throw siteNotFound(siteId);
    // Hashing first makes the comparison fixed-length, so it is constant-time whatever was sent.
    const presented = Buffer.from(hashClaimToken(token ?? ""), "hex");
    const stored = Buffer.from(site.claimTokenHash ?? "", "hex");
    const valid =
      token !== undefined && token !== "" && stored.length === presented.length && timingSafeEqual(stored, presented);
    if (!valid || site.status !== "active")
      throw forbidden("invalid-claim-token", `A valid X-Service-Claim-Token for site ${siteId} is required.`);
    return site;
  }

  /**
   * Issues the site's HMAC secret, shown once; `rotate` replaces an existing one. The site must
   * have an origin it owns (verified, or declared for it in [sites]), and a secret declared in
   * [sites] cannot be replaced.
   */
  async issueSecret(siteId: string, rotate: boolean): Promise<{ siteId: string; secret: string }> {
    const site = await this.requireWritable(siteId);
    this.requireReplaceableSecret(siteId);
    // Config origins exist only while the site is declared (syncDeclarations drops the rest).
    if (site.origins.length === 0)
      throw new DomainError("site-not-verified", 409, `Site ${siteId} has no verified origin yet; verify one first.`);
    const secret = randomToken();
    // Conditional, so of two concurrent first issues only one succeeds.
    if (!(await this.store.setSecret(siteId, secret, rotate)))
      throw new DomainError(
        "secret-exists",
        409,
        `Site ${siteId} already has a secret; send {"rotate": true} to replace it.`,
      );
    return { siteId, secret };
  }

  /** Refuses to replace or remove a secret declared in [sites] (the file is its source of truth). */
  requireReplaceableSecret(siteId: string): void {
    if (this.declared.get(siteId)?.secret)
      throw configDeclared(`The secret of site ${siteId} is declared in [sites]; change it in the configuration.`);
  }

  /** Refuses to revoke an origin declared in [sites] for the site. */
  requireRevocableOrigin(siteId: string, origin: string): void {
    if (this.declared.get(siteId)?.origins.includes(normalizeOrigin(origin) ?? origin)) {
      throw configDeclared(
        `Origin ${origin} of site ${siteId} is declared in [sites]; remove it from the configuration.`,
      );
    }
  }
}

export function checkPath(siteId: string, pageSlug?: string): void {
  const errors = [];
  if (!isValidSiteId(siteId)) errors.push({ field: "site_id", message: "must match ^[a-z0-9-]{1,64}$" });
  if (pageSlug !== undefined && !isValidPageSlug(pageSlug))
    errors.push({ field: "page_slug", message: "must match ^[a-z0-9-]{1,64}$" });
  if (errors.length > 0) throw validationError("Invalid site_id or page_slug.", errors);
}

const configDeclared = (message: string) => new DomainError("config-declared", 409, message);
const siteTaken = (siteId: string) => new DomainError("site-id-taken", 409, `Site id ${siteId} is already taken.`);
export const siteNotFound = (siteId: string) => notFound("site-not-found", `Site ${siteId} is not registered.`);

/** A comment's address on its page: the pattern with the slug in it, and the comment's anchor; null without a pattern. */
export function commentLink(pattern: string | null, pageSlug: string, eventId: string | null): string | null {
  if (pattern === null) return null;
  const page = pattern.replaceAll("{page_slug}", pageSlug);
  return eventId === null ? page : `${page}#comment-${encodeURIComponent(eventId)}`;
}
