// The governance domain: role claims (site admin, site manager, page moderator), their
// redemption through the AS bot's DM, revocation, ownership transfer. A claim names a Matrix
// user and carries a one-time verify token; only when that user sends it to the bot
// (redeem) does the role exist, and then its power levels are written (power-levels.ts).
// Who may ask is the caller's concern: the REST adapter checks claim or operator tokens.
import { randomBytes } from "node:crypto";
import type { Db, Tx } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { classifyMatrixError } from "../../matrix/errors.ts";
import { DomainError, notFound, validationError } from "../../core/errors.ts";
import { isValidUserId } from "../../core/identifiers.ts";
import { rotateClaimToken } from "../operator/operator-sites.ts";
import { inServiceNamespace } from "../rooms/roles.ts";
import { checkPath, type Sites } from "../sites/sites.ts";
import { levelOf } from "./levels.ts";
import type { RolePowerLevels, SiteRoom } from "./power-levels.ts";
import type { GovernanceForBot, HeldRole, RedeemOutcome, RoleKind } from "./standing.ts";
import { claimIdOf, issueVerifyToken, VERIFY_TOKEN_TTL_HOURS, verifyTokenMatches } from "./verify-tokens.ts";

/** Claims and roles of a retiring site count for nothing (the retirement pass clears them). */
const ACTIVE = { status: "active" };

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

  constructor(
    private readonly db: Db,
    private readonly sites: Sites,
    private readonly hs: Homeserver,
    private readonly levels: RolePowerLevels,
    private readonly log: (message: string) => void,
  ) {
    this.serviceUser = inServiceNamespace(hs.names);
  }

  /** A pending claim of `role` for `userId`; it replaces the user's pending claim of the same role. */
  async claim(scope: RoleScope, userId: string): Promise<PendingClaim> {
    await this.requireScope(scope, userId);
    return (await this.db.$transaction((tx) => this.createClaim(tx, scope, userId))).claim;
  }

  /**
   * An ownership transfer: a pending admin claim for `userId` plus the transfer record; it
   * replaces a pending transfer. Completed when the target redeems the claim.
   */
  async transferOwnership(siteId: string, userId: string): Promise<PendingTransfer> {
    const scope: RoleScope = { siteId, pageSlug: null, role: "admin" };
    await this.requireScope(scope, userId);
    return this.db.$transaction(async (tx) => {
      await this.cancelTransfers(tx, siteId);
      const { claim, claimId } = await this.createClaim(tx, scope, userId);
      const transfer = await tx.ownershipTransfer.create({ data: { id: randomBytes(12).toString("hex"), siteId, userId, claimId } });
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
    const { cancelled, revoked, adminsLeft } = await this.db.$transaction(async (tx) => {
      const pending = await tx.roleClaim.findMany({ where: { ...where, status: "pending" }, select: { id: true, expiresAt: true } });
      await tx.roleClaim.updateMany({ where: { id: { in: pending.map((c) => c.id) } }, data: { status: "cancelled", endedAt } });
      await tx.ownershipTransfer.updateMany({ where: { claimId: { in: pending.map((c) => c.id) }, status: "pending" }, data: { status: "cancelled" } });
      const { count } = await tx.roleClaim.updateMany({ where: { ...where, status: "applied" }, data: { status: "revoked", endedAt } });
      const adminsLeft = await tx.roleClaim.count({ where: { siteId: scope.siteId, role: "admin", status: "applied" } });
      return { cancelled: pending.filter((c) => c.expiresAt > endedAt).length, revoked: count, adminsLeft };
    });
    if (cancelled === 0 && revoked === 0) {
      throw notFound("role-not-found", `${userId} holds no ${scope.role} role and has no pending ${scope.role} claim on ${describe(scope)}.`);
    }
    if (revoked > 0) await this.writeLevels(scope.siteId);
    const lastAdmin = scope.role === "admin" && revoked > 0 && adminsLeft === 0;
    return {
      userId,
      level: levelOf(scope.role),
      warnings: lastAdmin
        ? [{ code: "last-admin-removed", message: `Site ${scope.siteId} has no admin left; appoint one with an admin claim (the site's claim token still works).` }]
        : null,
    };
  }

  async hasStanding(userId: string): Promise<boolean> {
    const count = await this.db.roleClaim.count({ where: { userId, site: ACTIVE, OR: [{ status: "applied" }, { status: "pending", expiresAt: { gt: new Date() } }] } });
    return count > 0;
  }

  async rolesOf(userId: string): Promise<HeldRole[]> {
    const rows = await this.db.roleClaim.findMany({ where: { userId, status: "applied", site: ACTIVE }, orderBy: [{ siteId: "asc" }, { level: "desc" }, { pageSlug: "asc" }] });
    return rows.map(heldRole);
  }

  async pendingClaims(siteId: string): Promise<Array<HeldRole & { userId: string; expiresAt: Date }>> {
    const rows = await this.db.roleClaim.findMany({ where: { siteId, status: "pending", expiresAt: { gt: new Date() }, site: ACTIVE }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    return rows.map((row) => ({ ...heldRole(row), userId: row.userId, expiresAt: row.expiresAt }));
  }

  /**
   * Redeems a verify token the user sent the bot: the claim becomes a role and its power levels
   * are written. A transfer's claim also resets the admin roster to the user and rotates the
   * site's claim token (returned, for the bot to deliver in this DM only).
   */
  async redeem(userId: string, token: string): Promise<RedeemOutcome> {
    const claimId = claimIdOf(token);
    const claim = claimId ? await this.db.roleClaim.findUnique({ where: { id: claimId }, include: { transfer: true, site: { select: { status: true } } } }) : null;
    if (!claim || !verifyTokenMatches(token, claim.tokenHash)) return { ok: false, reason: "unknown-token" };
    if (claim.userId !== userId) return { ok: false, reason: "wrong-user" };
    const failure = refusal(claim.status, claim.expiresAt, claim.site.status);
    if (failure) return { ok: false, reason: failure };
    const now = new Date();
    const applied = await this.db.$transaction(async (tx) => {
      // Conditional, so of two concurrent redemptions only one applies the claim.
      const { count } = await tx.roleClaim.updateMany({ where: { id: claim.id, status: "pending", expiresAt: { gt: now } }, data: { status: "applied", appliedAt: now } });
      if (count === 0) return false;
      const sameRole = { siteId: claim.siteId, pageSlug: claim.pageSlug, role: claim.role, userId, id: { not: claim.id } };
      await tx.roleClaim.updateMany({ where: { ...sameRole, status: "applied" }, data: { status: "superseded", endedAt: now } });
      if (claim.transfer) await this.resetAdmins(tx, claim.siteId, claim.id, userId, now);
      return true;
    });
    if (!applied) {
      const current = await this.db.roleClaim.findUniqueOrThrow({ where: { id: claim.id }, select: { status: true, expiresAt: true } });
      return { ok: false, reason: refusal(current.status, current.expiresAt, "active") ?? "used" };
    }
    const newClaimToken = claim.transfer ? (await rotateClaimToken({ sites: this.sites }, claim.siteId)).claimToken : null;
    // The role is written even where the service wrote it before (a level lowered by hand is
    // restored by a new claim); an ownership transfer also removes admins made by hand in Matrix.
    const rooms = await this.roleRooms(claim.siteId, claim.pageSlug);
    const force = claim.transfer ? await this.levels.otherAdmins(claim.siteId, userId) : new Map<string, Set<string>>();
    for (const room of rooms) force.set(room.roomId, new Set([...(force.get(room.roomId) ?? []), userId]));
    await this.writeLevels(claim.siteId, force);
    await this.invite(rooms[0], userId);
    return { ok: true, siteId: claim.siteId, role: claim.role as RoleKind, pageSlug: claim.pageSlug || null, level: claim.level, newClaimToken };
  }

  /** 400 for malformed ids and user ids and for the service's own users; 404/410 for a missing or retiring site. */
  private async requireScope(scope: RoleScope, userId: string): Promise<void> {
    checkPath(scope.siteId, scope.pageSlug ?? undefined);
    requireUserId(userId);
    if (this.serviceUser(userId)) throw new DomainError("reserved-user-id", 400, `${userId} is one of the service's own Matrix users; roles go to ordinary accounts.`);
    await this.requireActiveSite(scope.siteId);
  }

  /** The site exists and is not retiring (a claim route's token already proves both; operator routes need the check). */
  private async requireActiveSite(siteId: string): Promise<void> {
    await this.sites.requireWritable(siteId);
  }

  private async createClaim(tx: Tx, scope: RoleScope, userId: string): Promise<{ claim: PendingClaim; claimId: string }> {
    const pageSlug = scope.pageSlug ?? "";
    const superseded = await tx.roleClaim.findMany({ where: { siteId: scope.siteId, pageSlug, role: scope.role, userId, status: "pending" }, select: { id: true } });
    const ids = superseded.map((c) => c.id);
    await tx.roleClaim.updateMany({ where: { id: { in: ids } }, data: { status: "cancelled", endedAt: new Date() } });
    await tx.ownershipTransfer.updateMany({ where: { claimId: { in: ids }, status: "pending" }, data: { status: "cancelled" } });
    const { claimId, token, tokenHash } = issueVerifyToken();
    const expiresAt = new Date(Date.now() + VERIFY_TOKEN_TTL_HOURS * 3_600_000);
    const level = levelOf(scope.role);
    await tx.roleClaim.create({ data: { id: claimId, siteId: scope.siteId, pageSlug, userId, role: scope.role, level, tokenHash, expiresAt } });
    return { claim: { ...scope, userId, level, verifyToken: token, expiresAt }, claimId };
  }

  /** Cancels the site's pending transfers and their claims. */
  private async cancelTransfers(tx: Tx, siteId: string): Promise<void> {
    const pending = await tx.ownershipTransfer.findMany({ where: { siteId, status: "pending" }, select: { claimId: true } });
    await tx.ownershipTransfer.updateMany({ where: { siteId, status: "pending" }, data: { status: "cancelled" } });
    await tx.roleClaim.updateMany({ where: { id: { in: pending.map((t) => t.claimId) }, status: "pending" }, data: { status: "cancelled", endedAt: new Date() } });
  }

  /** Completes a transfer: the target is the site's only admin; other admin claims end, pending transfers are cancelled. */
  private async resetAdmins(tx: Tx, siteId: string, claimId: string, userId: string, now: Date): Promise<void> {
    const others = { siteId, role: "admin", id: { not: claimId } };
    await tx.roleClaim.updateMany({ where: { ...others, status: "applied" }, data: { status: "revoked", endedAt: now } });
    await tx.roleClaim.updateMany({ where: { ...others, status: "pending" }, data: { status: "cancelled", endedAt: now } });
    await tx.ownershipTransfer.updateMany({ where: { siteId, status: "pending", claimId: { not: claimId } }, data: { status: "cancelled" } });
    await tx.ownershipTransfer.update({ where: { claimId }, data: { status: "complete", completedAt: now } });
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
    await this.hs.invite(room.roomId, userId).catch((err) => this.log(`governance: invite of ${userId} to ${room.roomId} failed: ${classifyMatrixError(err).message}`));
  }
}

function requireUserId(userId: string): void {
  if (!isValidUserId(userId)) throw validationError("user_id must be a Matrix user id (@localpart:server).", [{ field: "user_id", message: "must be a Matrix user id" }]);
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

const describe = (scope: RoleScope) => (scope.pageSlug === null ? `site ${scope.siteId}` : `page ${scope.siteId}/${scope.pageSlug}`);
