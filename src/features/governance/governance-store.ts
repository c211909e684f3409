// The governance aggregate: role claims (pending, applied, ended) and ownership transfers.
// A store opened by transaction() runs its queries in that transaction.
import { randomBytes } from "node:crypto";
import type { Db, Tx } from "../../db/client.ts";

/** Claims and roles of a retiring site count for nothing (the retirement pass clears them). */
const ACTIVE = { status: "active" };

/** One user's claims of one role in one place (pageSlug "" for the site). */
export interface ClaimKey {
  siteId: string;
  pageSlug: string;
  role: string;
  userId: string;
}

export interface NewClaim extends ClaimKey {
  id: string;
  level: number;
  tokenHash: string;
  expiresAt: Date;
}

export class GovernanceStore {
  constructor(
    private readonly db: Db,
    private readonly client: Db | Tx = db,
  ) {}

  /** Runs `work` in one transaction, on a store whose queries are part of it. */
  transaction<T>(work: (store: GovernanceStore) => Promise<T>): Promise<T> {
    return this.db.$transaction((tx) => work(new GovernanceStore(this.db, tx)));
  }

  /** Cancels the pending claims (and their pending transfers) of `key`; answers what was pending. */
  async cancelPendingClaims(key: ClaimKey, endedAt: Date): Promise<Array<{ id: string; expiresAt: Date }>> {
    const pending = await this.client.roleClaim.findMany({
      where: { ...key, status: "pending" },
      select: { id: true, expiresAt: true },
    });
    const ids = pending.map((c) => c.id);
    await this.client.roleClaim.updateMany({ where: { id: { in: ids } }, data: { status: "cancelled", endedAt } });
    await this.client.ownershipTransfer.updateMany({
      where: { claimId: { in: ids }, status: "pending" },
      data: { status: "cancelled" },
    });
    return pending;
  }

  /** Ends the applied role of `key`; answers how many rows it was. */
  async revokeApplied(key: ClaimKey, endedAt: Date): Promise<number> {
    return (
      await this.client.roleClaim.updateMany({
        where: { ...key, status: "applied" },
        data: { status: "revoked", endedAt },
      })
    ).count;
  }

  appliedAdminCount(siteId: string): Promise<number> {
    return this.client.roleClaim.count({ where: { siteId, role: "admin", status: "applied" } });
  }

  async createClaim(claim: NewClaim): Promise<void> {
    await this.client.roleClaim.create({ data: claim });
  }

  createTransfer(siteId: string, userId: string, claimId: string) {
    return this.client.ownershipTransfer.create({
      data: { id: randomBytes(12).toString("hex"), siteId, userId, claimId },
    });
  }

  /** Cancels the site's pending transfers and their claims. */
  async cancelTransfers(siteId: string): Promise<void> {
    const pending = await this.client.ownershipTransfer.findMany({
      where: { siteId, status: "pending" },
      select: { claimId: true },
    });
    await this.client.ownershipTransfer.updateMany({
      where: { siteId, status: "pending" },
      data: { status: "cancelled" },
    });
    await this.client.roleClaim.updateMany({
      where: { id: { in: pending.map((t) => t.claimId) }, status: "pending" },
      data: { status: "cancelled", endedAt: new Date() },
    });
  }

  /** Completes a transfer: the target is the site's only admin; other admin claims end, pending transfers are cancelled. */
  async completeTransfer(siteId: string, claimId: string, now: Date): Promise<void> {
    const others = { siteId, role: "admin", id: { not: claimId } };
    await this.client.roleClaim.updateMany({
      where: { ...others, status: "applied" },
      data: { status: "revoked", endedAt: now },
    });
    await this.client.roleClaim.updateMany({
      where: { ...others, status: "pending" },
      data: { status: "cancelled", endedAt: now },
    });
    await this.client.ownershipTransfer.updateMany({
      where: { siteId, status: "pending", claimId: { not: claimId } },
      data: { status: "cancelled" },
    });
    await this.client.ownershipTransfer.update({ where: { claimId }, data: { status: "complete", completedAt: now } });
  }

  /** Applies a pending, unexpired claim; conditional, so of two concurrent redemptions only one applies it. */
  async applyClaim(claimId: string, now: Date): Promise<boolean> {
    const { count } = await this.client.roleClaim.updateMany({
      where: { id: claimId, status: "pending", expiresAt: { gt: now } },
      data: { status: "applied", appliedAt: now },
    });
    return count > 0;
  }

  /** Ends the user's other applied claims of the same role (the one just applied replaces them). */
  async supersedeOthers(key: ClaimKey, claimId: string, endedAt: Date): Promise<void> {
    await this.client.roleClaim.updateMany({
      where: { ...key, id: { not: claimId }, status: "applied" },
      data: { status: "superseded", endedAt },
    });
  }

  /** A claim with its transfer (if any) and its site's status. */
  claimToRedeem(claimId: string) {
    return this.client.roleClaim.findUnique({
      where: { id: claimId },
      include: { transfer: true, site: { select: { status: true } } },
    });
  }

  claimState(claimId: string): Promise<{ status: string; expiresAt: Date }> {
    return this.client.roleClaim.findUniqueOrThrow({
      where: { id: claimId },
      select: { status: true, expiresAt: true },
    });
  }

  /** A role, or a claim still pending, on an active site. */
  async hasStanding(userId: string, now: Date): Promise<boolean> {
    const count = await this.client.roleClaim.count({
      where: { userId, site: ACTIVE, OR: [{ status: "applied" }, { status: "pending", expiresAt: { gt: now } }] },
    });
    return count > 0;
  }

  /** The user's roles on active sites, by site, highest level first. */
  rolesOf(userId: string) {
    return this.client.roleClaim.findMany({
      where: { userId, status: "applied", site: ACTIVE },
      orderBy: [{ siteId: "asc" }, { level: "desc" }, { pageSlug: "asc" }],
    });
  }

  /** The unexpired pending claims of an active site, oldest first. */
  pendingClaims(siteId: string, now: Date) {
    return this.client.roleClaim.findMany({
      where: { siteId, status: "pending", expiresAt: { gt: now }, site: ACTIVE },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
  }

  /** The site's applied roles (any site status: the power levels follow them until the retirement pass clears them). */
  appliedRoles(siteId: string): Promise<Array<{ userId: string; role: string; pageSlug: string; level: number }>> {
    return this.client.roleClaim.findMany({
      where: { siteId, status: "applied" },
      select: { userId: true, role: true, pageSlug: true, level: true },
    });
  }

  async sitesWithAppliedRoles(): Promise<string[]> {
    return (
      await this.client.roleClaim.findMany({
        where: { status: "applied" },
        distinct: ["siteId"],
        select: { siteId: true },
      })
    ).map((r) => r.siteId);
  }
}
