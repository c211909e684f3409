// Proving control of an origin: the chosen methods are tried in order and the first proof
// that matches wins, so publishing the same token in several places gives a fallback.
import { isIP } from "node:net";
import { refusedAddress } from "../../security/address-policy.ts";
import { checkDnsTxt, dnsTxtInstructions } from "./dns-txt.ts";
import type { Check, Proof } from "./proof.ts";
import type { HostResolver } from "../../security/resolver.ts";
import { checkWellKnown, wellKnownInstructions } from "./well-known.ts";

export const VERIFICATION_METHODS = ["well-known", "dns-txt"] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

export type VerificationOutcome =
  | { verifiedBy: VerificationMethod }
  | { failures: { method: VerificationMethod; reason: string }[] };

/** The origin's host without IPv6 brackets. */
const hostOf = (origin: string) => new URL(origin).hostname.replace(/^\[(.*)\]$/, "$1");

/** Whether the origin's host is an IP literal: no DNS name to hold a TXT record. */
export const isIpOrigin = (origin: string) => isIP(hostOf(origin)) !== 0;

export class OriginVerifier {
  private readonly refuse: (address: string) => string | null;

  constructor(
    private readonly resolver: HostResolver,
    allowPrivate: boolean,
  ) {
    this.refuse = allowPrivate ? () => null : refusedAddress;
  }

  /** Why an IP-literal origin may not be verified at all (e.g. "loopback"), or null. */
  refusedOrigin(origin: string): string | null {
    return isIpOrigin(origin) ? this.refuse(hostOf(origin)) : null;
  }

  instructions(origin: string, proof: Proof, methods: readonly VerificationMethod[]) {
    return Object.fromEntries(
      methods.map((method) => [
        method,
        method === "well-known"
          ? wellKnownInstructions(origin, proof)
          : dnsTxtInstructions(hostOf(origin), proof.token),
      ]),
    );
  }

  async verify(origin: string, proof: Proof, methods: readonly VerificationMethod[]): Promise<VerificationOutcome> {
    const failures: { method: VerificationMethod; reason: string }[] = [];
    for (const method of methods) {
      const check = await this.check(method, origin, proof);
      if (check.ok) return { verifiedBy: method };
      failures.push({ method, reason: check.reason });
    }
    return { failures };
  }

  private check(method: VerificationMethod, origin: string, proof: Proof): Promise<Check> {
    if (method === "well-known") return checkWellKnown(origin, proof, { resolver: this.resolver, refuse: this.refuse });
    return checkDnsTxt(hostOf(origin), proof.token, this.resolver);
  }
}
