// The governance domain: role claims (site admin, site manager, page moderator), their
// redemption through the AS bot's DM, revocation, ownership transfer. A claim names a Matrix
// user and carries a one-time verify token; only when that user sends it to the bot
// (redeem) does the role exist, and then its power levels are written (power-levels.ts).
// Who may ask is the caller's concern: the REST adapter checks claim or operator tokens.
import type { Db } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { classifyMatrixError } from "../../matrix/errors.ts";
import { DomainError, notFound, validationError } from "../../core/errors.ts";
import { isValidUserId } from "../../core/identifiers.ts";
import { rotateClaimToken } from "../operator/operator-sites.ts";
import { inServiceNamespace } from "../rooms/roles.ts";
import { checkPath, type Sites } from "../sites/sites.ts";
import { GovernanceStore } from "./governance-store.ts";
import { levelOf } from "./levels.ts";
import type { RolePowerLevels, SiteRoom } from "./power-levels.ts";
import type { GovernanceForBot, HeldRole, RedeemOutcome, RoleKind } from "./standing.ts";
import { claimIdOf, issueVerifyToken, VERIFY_TOKEN_TTL_HOURS, verifyTokenMatches } from "./verify-tokens.ts";

export interface PendingClaim {
  siteId: string;
  pageSlug: string | null;
  role: RoleKind;
  userId: string;
  level: number;
  /** Shown once; the user sends `service-claim:<token>` to the AS bot. */
  verifyToken: string;
  expiresAt: Date;
}

export interface GovernanceWarning {
  code: string;
  message: string;
}

export interface RevokedRole {
  userId: string;
  level: number;
  /** Set when the last site admin was removed. */
  warnings: GovernanceWarning[] | null;
}

export interface PendingTransfer {
  claim: PendingClaim;
  transfer: { id: string; siteId: string; userId: string; status: string; createdAt: Date };
}

/** Where a role lives: the site (pageSlug null) or one page. */
interface RoleScope {
  siteId: string;
  pageSlug: string | null;
  role: RoleKind;
}

export class Governance implements GovernanceForBot {
  private readonly serviceUser: (userId: string) => boolean;
  private readonly store: GovernanceStore;

  constructor(
    db: Db,
    private readonly sites: Sites,
    private readonly hs: Homeserver,
    private readonly levels: RolePowerLevels,
    private readonly log: (message: string) => void,
  ) {
    this.serviceUser = inServiceNamespace(hs.names);
    this.store = new GovernanceStore(db);
  }

  /** A pending claim of `role` for `userId`; it replaces the user's pending claim of the same role. */
  async claim(scope: RoleScope, userId: string): Promise<PendingClaim> {
    await this.requireScope(scope, userId);
    return (await this.store.transaction((tx) => this.createClaim(tx, scope, userId))).claim;
  }

  /**
   * An ownership transfer: a pending admin claim for `userId` plus the transfer record; it
   * replaces a pending transfer. Completed when the target redeems the claim.
   */
  async transferOwnership(siteId: string, userId: string): Promise<PendingTransfer> {
    const scope: RoleScope = { siteId, pageSlug: null, role: "admin" };
    await this.requireScope(scope, userId);
    return this.store.transaction(async (tx) => {
      await tx.cancelTransfers(siteId);
      const { claim, claimId } = await this.createClaim(tx, scope, userId);
      const transfer = await tx.createTransfer(siteId, userId, claimId);
      return { claim, transfer };
    });
  }

  /**
   * Cancels the user's pending claim of the role and removes the applied role from every room
   * it was written to. 404 role-not-found when there is neither.
   */
  async revoke(scope: RoleScope, userId: string): Promise<RevokedRole> {
    checkPath(scope.siteId, scope.pageSlug ?? undefined);
    requireUserId(userId);
    await this.requireActiveSite(scope.siteId);
    const where = { siteId: scope.siteId, pageSlug: scope.pageSlug ?? "", role: scope.role, userId };
    const endedAt = new Date();
    const { cancelled, revoked, adminsLeft } = await this.store.transaction(async (tx) => {
      const pending = await tx.cancelPendingClaims(where, endedAt);
      const revoked = await tx.revokeApplied(where, endedAt);
      const adminsLeft = await tx.appliedAdminCount(scope.siteId);
      return { cancelled: pending.filter((c) => c.expiresAt > endedAt).length, revoked, adminsLeft };
    });
    if (cancelled === 0 && revoked === 0) {
      throw notFound(
        "role-not-found",
        `${userId} holds no ${scope.role} role and has no pending ${scope.role} claim on ${describe(scope)}.`,
      );
    }
    if (revoked > 0) await this.writeLevels(scope.siteId);
    const lastAdmin = scope.role === "admin" && revoked > 0 && adminsLeft === 0;
    return {
      userId,
      level: levelOf(scope.role),
      warnings: lastAdmin
        ? [
            {
              code: "last-admin-removed",
              message: `Site ${scope.siteId} has no admin left; appoint one with an admin claim (the site's claim token still works).`,
            },
          ]
        : null,
    };
  }

  async hasStanding(userId: string): Promise<boolean> {
    return this.store.hasStanding(userId, new Date());
  }

  async rolesOf(userId: string): Promise<HeldRole[]> {
    return (await this.store.rolesOf(userId)).map(heldRole);
  }

  async pendingClaims(siteId: string): Promise<Array<HeldRole & { userId: string; expiresAt: Date }>> {
    const rows = await this.store.pendingClaims(siteId, new Date());
    return rows.map((row) => ({ ...heldRole(row), userId: row.userId, expiresAt: row.expiresAt }));
  }

  /**
   * Redeems a verify token the user sent the bot: the claim becomes a role and its power levels
   * are written. A transfer's claim also resets the admin roster to the user and rotates the
   * site's claim token (returned, for the bot to deliver in this DM only).
   */
  async redeem(userId: string, token: string): Promise<RedeemOutcome> {
    const claimId = claimIdOf(token);
    const claim = claimId ? await this.store.claimToRedeem(claimId) : null;
    if (!claim || !verifyTokenMatches(token, claim.tokenHash)) return { ok: false, reason: "unknown-token" };
    if (claim.userId !== userId) return { ok: false, reason: "wrong-user" };
    const failure = refusal(claim.status, claim.expiresAt, claim.site.status);
    if (failure) return { ok: false, reason: failure };
    const now = new Date();
    const applied = await this.store.transaction(async (tx) => {
      if (!(await tx.applyClaim(claim.id, now))) return false;
      await tx.supersedeOthers(
        { siteId: claim.siteId, pageSlug: claim.pageSlug, role: claim.role, userId },
        claim.id,
        now,
      );
      if (claim.transfer) await tx.completeTransfer(claim.siteId, claim.id, now);
      return true;
    });
    if (!applied) {
      const current = await this.store.claimState(claim.id);
      return { ok: false, reason: refusal(current.status, current.expiresAt, "active") ?? "used" };
    }
    const newClaimToken = claim.transfer
      ? (await rotateClaimToken({ sites: this.sites }, claim.siteId)).claimToken
      : null;
    // The role is written even where the service wrote it before (a level lowered by hand is
    // restored by a new claim); an ownership transfer also removes admins made by hand in Matrix.
    const rooms = await this.roleRooms(claim.siteId, claim.pageSlug);
    const force = claim.transfer ? await this.levels.otherAdmins(claim.siteId, userId) : new Map<string, Set<string>>();
    for (const room of rooms) force.set(room.roomId, new Set([...(force.get(room.roomId) ?? []), userId]));
    await this.writeLevels(claim.siteId, force);
    await this.invite(rooms[0], userId);
    return {
      ok: true,
      siteId: claim.siteId,
      role: claim.role as RoleKind,
      pageSlug: claim.pageSlug || null,
      level: claim.level,
      newClaimToken,
    };
  }

  /** 400 for malformed ids and user ids and for the service's own users; 404/410 for a missing or retiring site. */
  private async requireScope(scope: RoleScope, userId: string): Promise<void> {
    checkPath(scope.siteId, scope.pageSlug ?? undefined);
    requireUserId(userId);
    if (this.serviceUser(userId))
      throw new DomainError(
        "reserved-user-id",
        400,
        `${userId} is one of the service's own Matrix users; roles go to ordinary accounts.`,
      );
    await this.requireActiveSite(scope.siteId);
  }

  /** The site exists and is not retiring (a claim route's token already proves both; operator routes need the check). */
  private async requireActiveSite(siteId: string): Promise<void> {
    await this.sites.requireWritable(siteId);
  }

  /** A new pending claim; it replaces the user's pending claims of the same role. */
  private async createClaim(
    tx: GovernanceStore,
    scope: RoleScope,
    userId: string,
  ): Promise<{ claim: PendingClaim; claimId: string }> {
    const key = { siteId: scope.siteId, pageSlug: scope.pageSlug ?? "", role: scope.role, userId };
    await tx.cancelPendingClaims(key, new Date());
    const { claimId, token, tokenHash } = issueVerifyToken();
    const expiresAt = new Date(Date.now() + VERIFY_TOKEN_TTL_HOURS * 3_600_000);
    const level = levelOf(scope.role);
    await tx.createClaim({ ...key, id: claimId, level, tokenHash, expiresAt });
    return { claim: { ...scope, userId, level, verifyToken: token, expiresAt }, claimId };
  }

  private async writeLevels(siteId: string, force?: Map<string, Set<string>>): Promise<void> {
    await this.levels.reconcile(siteId, force);
    await this.levels.flush(siteId);
  }

  /** The rooms a role applies to, its entry room (Space or page room) first: the Space and every room for site roles, the page's room for a moderator. */
  private async roleRooms(siteId: string, pageSlug: string): Promise<SiteRoom[]> {
    const rooms = await this.levels.rooms(siteId);
    return pageSlug === "" ? rooms : rooms.filter((room) => room.pageSlug === pageSlug);
  }

  /**
   * Invites a new role holder where the role starts: site roles to the Space (its rooms are
   * reachable from there), a moderator to the page's room. Best effort: a user already joined
   * (or a failed invite) changes nothing about the role.
   */
  private async invite(room: SiteRoom | undefined, userId: string): Promise<void> {
    if (!room) return;
    await this.hs
      .invite(room.roomId, userId)
      .catch((err) =>
        this.log(`governance: invite of ${userId} to ${room.roomId} failed: ${classifyMatrixError(err).message}`),
      );
  }
}

function requireUserId(userId: string): void {
  if (!isValidUserId(userId))
    throw validationError("user_id must be a Matrix user id (@localpart:server).", [
      { field: "user_id", message: "must be a Matrix user id" },
    ]);
}

/** Why a claim in this state cannot be redeemed, or null when it can. */
function refusal(status: string, expiresAt: Date, siteStatus: string): "unknown-token" | "expired" | "used" | null {
  // A cancelled claim (revoked, replaced) and a retiring site's claims no longer exist.
  if (status === "cancelled" || siteStatus !== "active") return "unknown-token";
  if (status !== "pending") return "used";
  return expiresAt <= new Date() ? "expired" : null;
}

function heldRole(row: { siteId: string; role: string; pageSlug: string; level: number }): HeldRole {
  return { siteId: row.siteId, role: row.role as RoleKind, pageSlug: row.pageSlug || null, level: row.level };
}

const describe = (scope: RoleScope) =>
  scope.pageSlug === null ? `site ${scope.siteId}` : `page ${scope.siteId}/${scope.pageSlug}`;
