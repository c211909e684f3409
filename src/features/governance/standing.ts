// The contract between the governance domain (role claims, roles, ownership transfers) and the
// AS bot's DM handling: what the bot may ask about a Matrix user. Implemented by the governance
// service (services.governance); the bot depends only on this interface.

export type RoleKind = "admin" | "manager" | "moderator";

/** A role (or pending claim) one Matrix user holds on one site. */
export interface HeldRole {
  siteId: string;
  role: RoleKind;
  /** The page of a moderator role; null for site roles. */
  pageSlug: string | null;
  level: number;
}

export type RedeemOutcome =
  | {
      ok: true;
      siteId: string;
      role: RoleKind;
      pageSlug: string | null;
      level: number;
      /** Set when the claim completed an ownership transfer: the site's new claim token, to deliver in this DM only. */
      newClaimToken: string | null;
    }
  | { ok: false; reason: "unknown-token" | "expired" | "used" | "wrong-user" };

export interface GovernanceForBot {
  /** True when the user has a pending claim or an applied role on any site: only then does the bot join their DM. */
  hasStanding(userId: string): Promise<boolean>;
  /** Redeems the token of a `service-claim:<token>` message the user sent in an unencrypted 1:1 DM. */
  redeem(userId: string, token: string): Promise<RedeemOutcome>;
  /** Applied roles the user holds, every site. */
  rolesOf(userId: string): Promise<HeldRole[]>;
  /** Pending claims on a site (for `!service` commands; callers check the sender's role on that site first). */
  pendingClaims(siteId: string): Promise<Array<HeldRole & { userId: string; expiresAt: Date }>>;
}
