// Governance: role claims, revocations and ownership transfers (src/features/governance/governance.ts).
// Who may ask is the caller's concern: the REST adapter checks claim or operator tokens,
// /graphql is operator-only.
import { builder } from "../../graphql/builder.ts";
import type { GovernanceWarning, PendingClaim, PendingTransfer, RevokedRole } from "./governance.ts";
import { ROLE_KINDS } from "./levels.ts";
import type { Governance } from "./governance.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    governance: Governance;
  }
}

const RoleKindType = builder.enumType("RoleKind", { values: ROLE_KINDS });

const PendingRoleClaim = builder.objectRef<PendingClaim>("PendingRoleClaim").implement({
  description:
    "A pending role claim: a role once its user sends `service-claim:<verifyToken>` to the AS bot in an unencrypted 1:1 DM.",
  fields: (t) => ({
    pending: t.boolean({ resolve: () => true }),
    siteId: t.exposeString("siteId"),
    pageSlug: t.exposeString("pageSlug", { nullable: true, description: "The page of a moderator claim." }),
    role: t.field({ type: RoleKindType, resolve: (claim) => claim.role }),
    userId: t.exposeString("userId"),
    level: t.exposeInt("level", {
      description: "The power level the role gives: admin 100, manager 75, moderator 50.",
    }),
    verifyToken: t.exposeString("verifyToken", { description: "Single use; shown once; only its hash is stored." }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
  }),
});

const GovernanceWarningType = builder.objectRef<GovernanceWarning>("GovernanceWarning").implement({
  fields: (t) => ({ code: t.exposeString("code"), message: t.exposeString("message") }),
});

const RevokedRoleType = builder.objectRef<RevokedRole>("RevokedRole").implement({
  description: "A role removed (or a pending claim cancelled).",
  fields: (t) => ({
    revoked: t.boolean({ resolve: () => true }),
    userId: t.exposeString("userId"),
    level: t.exposeInt("level"),
    warnings: t.expose("warnings", {
      type: [GovernanceWarningType],
      nullable: true,
      description: "Set when the last site admin was removed.",
    }),
  }),
});

const OwnershipTransferRecord = builder.objectRef<PendingTransfer["transfer"]>("OwnershipTransfer").implement({
  fields: (t) => ({
    id: t.exposeString("id"),
    siteId: t.exposeString("siteId"),
    userId: t.exposeString("userId"),
    status: t.exposeString("status", { description: '"pending", "complete" or "cancelled".' }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const PendingTransferType = builder.objectRef<PendingTransfer>("PendingOwnershipTransfer").implement({
  fields: (t) => ({
    claim: t.expose("claim", { type: PendingRoleClaim, description: "The target's pending admin claim." }),
    transfer: t.expose("transfer", { type: OwnershipTransferRecord }),
  }),
});

builder.mutationFields((t) => ({
  claimRole: t.field({
    type: PendingRoleClaim,
    description: "A pending claim of a role for a Matrix user; replaces that user's pending claim of the same role.",
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string({ description: "The page, for moderator claims only." }),
      role: t.arg({ type: RoleKindType, required: true }),
      userId: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.governance.claim(
        { siteId: args.siteId, pageSlug: args.pageSlug ?? null, role: args.role },
        args.userId,
      ),
  }),
  revokeRole: t.field({
    type: RevokedRoleType,
    description:
      "Cancels a user's pending claim of a role and removes the applied role from every room it was written to.",
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string({ description: "The page, for moderators only." }),
      role: t.arg({ type: RoleKindType, required: true }),
      userId: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.governance.revoke(
        { siteId: args.siteId, pageSlug: args.pageSlug ?? null, role: args.role },
        args.userId,
      ),
  }),
  transferOwnership: t.field({
    type: PendingTransferType,
    description:
      "Starts an ownership transfer: a pending admin claim for the target; redeemed, the admin roster is reset to the target and the claim token rotated.",
    args: { siteId: t.arg.string({ required: true }), userId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.governance.transferOwnership(args.siteId, args.userId),
  }),
}));
