// The texts the AS bot answers with (pure). Plain text: they are sent as m.notice bodies.
import type { HeldRole, RedeemOutcome, RoleKind } from "../standing.ts";
import { CLAIM_PREFIX, COMMAND_PREFIX } from "./commands.ts";

const ROLE_NAMES: Record<RoleKind, string> = { admin: "site admin", manager: "site manager", moderator: "moderator" };

/** What `!service status` shows of a site. */
export interface SiteSummary {
  siteId: string;
  status: string;
  pages: number;
  origins: Array<{ origin: string; source: string }>;
}

export type PendingClaim = HeldRole & { userId: string; expiresAt: Date };

export const describeRole = (role: Omit<HeldRole, "level">): string =>
  role.pageSlug === null
    ? `${ROLE_NAMES[role.role]} of site "${role.siteId}"`
    : `${ROLE_NAMES[role.role]} of page "${role.pageSlug}" on site "${role.siteId}"`;

export const HELP = [
  "I am the comment service's bot. In this 1:1 chat I understand:",
  `  ${CLAIM_PREFIX}<token> — apply the pending role claim the token was issued for`,
  `  ${COMMAND_PREFIX} help — this list`,
  `  ${COMMAND_PREFIX} roles — the sites and roles you hold`,
  `  ${COMMAND_PREFIX} status <site_id> — a site's status, pages and origins (needs a role on it)`,
  `  ${COMMAND_PREFIX} pending <site_id> — pending role claims of a site (needs admin or manager on it)`,
].join("\n");

export const GREETING = `Hello! Send ${CLAIM_PREFIX}<token> to apply a pending role claim, or "${COMMAND_PREFIX} help" for the commands.`;
export const UNKNOWN_COMMAND = `I did not understand that. Send "${COMMAND_PREFIX} help" for what I understand.`;
export const ENCRYPTED = `I cannot read encrypted messages. Start a 1:1 chat with me without encryption to send a role claim or a "${COMMAND_PREFIX}" command.`;
export const GROUP_ONLY = `Role claims and "${COMMAND_PREFIX}" commands work only in a 1:1 chat with me, with nobody else in the room. Nothing was done.`;
export const RATE_LIMITED = "You are sending me too many messages: I will ignore them for up to a minute.";

/** One answer for an unknown site and a site the sender holds no role on, so neither is revealed. */
export const notYours = (siteId: string): string => `Site "${siteId}" is unknown, or you hold no role on it.`;
export const needsManager = (siteId: string): string =>
  `Listing pending claims of site "${siteId}" needs the site admin or site manager role.`;

const REFUSALS: Record<Extract<RedeemOutcome, { ok: false }>["reason"], string> = {
  "unknown-token": "This claim token is not valid: no pending claim has it.",
  expired: "This claim token has expired. Ask for a new claim.",
  used: "This claim token has already been used.",
  "wrong-user": "This claim token was issued for another Matrix account.",
};

export function redeemAnswer(outcome: RedeemOutcome): string {
  if (!outcome.ok) return `Claim refused. ${REFUSALS[outcome.reason]}`;
  const applied = `Claim applied: you are now ${describeRole(outcome)} (power level ${outcome.level}).`;
  if (outcome.newClaimToken === null) return applied;
  return [
    applied,
    `Ownership transfer of site "${outcome.siteId}" complete: you are its only site admin, and its claim token was rotated.`,
    "The new claim token (keep it secret; it is shown only here, and the old one no longer works):",
    outcome.newClaimToken,
  ].join("\n");
}

export function rolesAnswer(roles: HeldRole[]): string {
  if (roles.length === 0) return "You hold no role on any site.";
  return ["Your roles:", ...roles.map((role) => `  ${describeRole(role)} (power level ${role.level})`)].join("\n");
}

export function statusAnswer(site: SiteSummary): string {
  const origins = site.origins.length === 0 ? ["  (none)"] : site.origins.map((o) => `  ${o.origin} (${o.source})`);
  return [
    `Site "${site.siteId}": ${site.status}, ${site.pages} page${site.pages === 1 ? "" : "s"} with a room.`,
    "Origins allowed to write:",
    ...origins,
  ].join("\n");
}

export function pendingAnswer(siteId: string, claims: PendingClaim[]): string {
  if (claims.length === 0) return `No pending claims on site "${siteId}".`;
  return [
    `Pending claims on site "${siteId}":`,
    ...claims.map((claim) => `  ${claim.userId}: ${describeRole(claim)}, expires ${claim.expiresAt.toISOString()}`),
  ].join("\n");
}
