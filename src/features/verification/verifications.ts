// Origin verification: a start hands out a token to publish, a confirm looks for it and
// records the origin as verified. One pending verification per site and origin; a new start
// replaces it.
import type { Db } from "../../db/client.ts";
import { VerificationStore } from "./verification-store.ts";
import { normalizeOrigin } from "../../security/origin.ts";
import { isIpOrigin, VERIFICATION_METHODS, type OriginVerifier, type VerificationMethod } from "./verifier.ts";
import { DomainError, notFound, validationError } from "../../core/errors.ts";
import type { Sites } from "../sites/sites.ts";
import { randomToken } from "../../security/random-token.ts";

export const VERIFICATION_TTL_HOURS = 24;
export const MAX_CONFIRM_ATTEMPTS = 5;

export interface StartedVerification {
  origin: string;
  token: string;
  expiresAt: Date;
  methods: VerificationMethod[];
  instructions: Record<string, unknown>;
}

export class Verifications {
  private readonly store: VerificationStore;

  constructor(
    db: Db,
    private readonly sites: Sites,
    private readonly verifier: OriginVerifier,
  ) {
    this.store = new VerificationStore(db);
  }

  async start(siteId: string, rawOrigin: string, requested: string[] | null): Promise<StartedVerification> {
    await this.sites.requireWritable(siteId);
    const origin = parseOrigin(rawOrigin);
    const refused = this.verifier.refusedOrigin(origin);
    if (refused) {
      throw new DomainError(
        "private-origin",
        400,
        `${origin} is not a public address (${refused}); such origins are verified only with security.allow_private_verification_origins = true.`,
      );
    }
    const methods = parseMethods(origin, requested);
    const token = randomToken();
    const expiresAt = new Date(Date.now() + VERIFICATION_TTL_HOURS * 3600_000);
    const pending = { token, methods: JSON.stringify(methods), attempts: 0, expiresAt };
    await this.store.replacePending(siteId, origin, pending);
    return {
      origin,
      token,
      expiresAt,
      methods,
      instructions: this.verifier.instructions(origin, { siteId, token }, methods),
    };
  }

  /** Looks for the pending token; on a match the origin becomes one of the site's verified origins. */
  async confirm(siteId: string, rawOrigin: string): Promise<void> {
    await this.sites.requireWritable(siteId);
    const origin = parseOrigin(rawOrigin);
    const pending = await this.store.find(siteId, origin);
    if (!pending)
      throw notFound(
        "verification-not-found",
        `No verification of ${origin} is pending for site ${siteId}; start one first.`,
      );
    if (pending.expiresAt.getTime() <= Date.now()) {
      throw new DomainError(
        "verification-expired",
        410,
        `The verification token for ${origin} expired at ${pending.expiresAt.toISOString()}; start a new verification.`,
      );
    }
    // The attempt is spent before the proof is looked at, in one conditional update, so
    // concurrent confirms cannot exceed the budget.
    if (!(await this.store.spendAttempt(pending.id, pending.token, MAX_CONFIRM_ATTEMPTS))) {
      throw new DomainError(
        "verification-attempts-exhausted",
        409,
        `All ${MAX_CONFIRM_ATTEMPTS} confirm attempts of this verification token are spent; start a new verification for ${origin}.`,
      );
    }
    const outcome = await this.verifier.verify(
      origin,
      { siteId, token: pending.token },
      JSON.parse(pending.methods) as VerificationMethod[],
    );
    if ("failures" in outcome) {
      const left = MAX_CONFIRM_ATTEMPTS - pending.attempts - 1;
      const reasons = outcome.failures.map((f) => `${f.method}: ${f.reason}`).join("; ");
      throw new DomainError(
        "verification-failed",
        403,
        `No proof of ${origin} found (${reasons}). ${left} of ${MAX_CONFIRM_ATTEMPTS} attempts left.`,
      );
    }
    await this.store.completed(siteId, origin, pending.id, pending.token);
  }
}

function parseOrigin(raw: string): string {
  const origin = normalizeOrigin(raw);
  if (!origin)
    throw validationError("origin must be scheme://host[:port] with scheme http or https.", [
      { field: "origin", message: "is not an http(s) origin" },
    ]);
  return origin;
}

/** The requested methods in order, or every method that applies to the origin. */
function parseMethods(origin: string, requested: string[] | null): VerificationMethod[] {
  const applicable = VERIFICATION_METHODS.filter((m) => m !== "dns-txt" || !isIpOrigin(origin));
  if (requested === null) return applicable;
  const valid =
    requested.length > 0 &&
    new Set(requested).size === requested.length &&
    requested.every((m) => (VERIFICATION_METHODS as readonly string[]).includes(m));
  if (!valid)
    throw validationError("methods must be distinct values of well-known and dns-txt.", [
      { field: "methods", message: "must be distinct methods" },
    ]);
  const inapplicable = requested.filter((m) => !(applicable as readonly string[]).includes(m));
  if (inapplicable.length > 0)
    throw validationError("dns-txt needs an origin with a host name, not an IP address.", [
      { field: "methods", message: "dns-txt does not apply to an IP origin" },
    ]);
  return requested as VerificationMethod[];
}
