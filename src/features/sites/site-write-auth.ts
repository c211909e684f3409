// Site write auth: whether a site accepts writes at all (registration precedes writes), and
// whether this request may make one: from one of the site's origins or, in secret mode, only
// with a valid and unused HMAC request signature from the site's backend.
import { forbidden } from "../../core/errors.ts";
import type { Sites, SiteWithOrigins } from "./sites.ts";
import type { RequestInfo } from "../../core/request.ts";
import type { CheckedSite } from "../../graphql/context.ts";
import type { SeenSignatures } from "./seen-signature-store.ts";
import type { VerificationPolicy } from "../../config/config.ts";
import { normalizeOrigin } from "../../security/origin.ts";
import { checkRequestSignature } from "../../security/request-signature.ts";

/**
 * How a site stands for writes:
 * - owned: declared in [sites], or it has verified an origin: writes from its origins;
 * - relaxed: under the optional policy, a server-generated id registered through the API (so
 *   it has a claim token) that has verified no origin yet: writes from any Origin;
 * - unverified: everything else, i.e. a caller-chosen id before it verifies an origin, any
 *   row without an ownership proof (a removed [sites] entry, a row without a claim token),
 *   and under the strict policy every site that has verified no origin: no writes at all.
 */
export type WriteStanding = "owned" | "relaxed" | "unverified";

export function writeStanding(site: SiteWithOrigins, declared: boolean, policy: VerificationPolicy): WriteStanding {
  if (declared || site.origins.some((o) => o.source === "verified")) return "owned";
  const ownershipProof = site.source === "api" && site.claimTokenHash !== null;
  return policy === "optional" && ownershipProof && site.idGenerated ? "relaxed" : "unverified";
}

/** Checks a write against the site's standing and mode; returns the signature to record when it was HMAC-signed. */
export function authorizeSiteWrite(
  site: SiteWithOrigins,
  standing: WriteStanding,
  secret: string | null,
  request: RequestInfo,
  nowSeconds = Math.floor(Date.now() / 1000),
): { signature: string; timestamp: number } | null {
  if (standing === "unverified")
    throw forbidden("site-not-verified", `Site ${site.id} accepts no writes until it has verified an origin.`);
  if (secret !== null) {
    const timestamp = request.headers["x-service-timestamp"];
    const signature = request.headers["x-service-signature"];
    if (!timestamp || !signature) {
      throw forbidden(
        "signature-required",
        `Site ${site.id} requires X-Service-Timestamp and X-Service-Signature on writes.`,
      );
    }
    const verdict = checkRequestSignature(
      secret,
      { method: request.method, target: request.target, body: request.rawBody, timestamp },
      signature,
      nowSeconds,
    );
    if (verdict === "ok") return { signature, timestamp: Number(timestamp) };
    const why = {
      malformed: "is malformed",
      stale: "timestamp is outside the ±5 minute window",
      mismatch: "does not match",
    }[verdict];
    throw forbidden("invalid-request-signature", `The request signature ${why}.`);
  }
  const origin = normalizeOrigin(request.headers.origin ?? "");
  if (!origin || (standing !== "relaxed" && !site.origins.some((o) => o.origin === origin))) {
    throw forbidden(
      "origin-not-allowed",
      `Origin ${request.headers.origin ?? "(none)"} may not write to site ${site.id}.`,
    );
  }
  return null;
}

/** The site-write gate of the route table. */
export class SiteWriteAuth {
  constructor(
    private readonly sites: Sites,
    readonly signatures: SeenSignatures,
    private readonly policy: VerificationPolicy,
  ) {}

  /**
   * The site exists, is writable, accepts writes, and the request may write to it. An accepted
   * signature is recorded here, before the operation runs, so a replay has no effect anywhere;
   * the price is that a signed request refused later (say, a spent challenge) used its
   * signature up too, and any retry is signed afresh.
   */
  async require(siteId: string, pageSlug: string | undefined, request: RequestInfo): Promise<CheckedSite> {
    const site = await this.sites.requireWritable(siteId, pageSlug);
    const standing = writeStanding(site, this.sites.isDeclared(site.id), this.policy);
    const signed = authorizeSiteWrite(site, standing, this.sites.secretOf(site), request);
    if (signed && !(await this.signatures.record(site.id, signed.signature, signed.timestamp))) {
      throw forbidden(
        "replayed-request-signature",
        "This request signature was used before; sign every request afresh (with a new X-Service-Timestamp).",
      );
    }
    return { site, pageSlug };
  }
}
