// Room lifecycle for the operator and the site owner: upgrades, upgrade intents and quarantined
// rooms (src/features/rooms/upgrades.ts, quarantine.ts).
import { builder } from "../../graphql/builder.ts";
import { DEFAULT_PAGE, DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../../core/pagination.ts";
import { PaginationMeta } from "../comments/graphql.ts";
import type { QuarantinedRoom as QuarantinedRoomShape, Quarantines } from "./quarantine.ts";
import type { RoomUpgrades, UpgradeIntent as UpgradeIntentShape, UpgradeResult } from "./upgrades.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    quarantines: Quarantines;
    upgrades: RoomUpgrades;
  }
}

const RoomUpgrade = builder.objectRef<UpgradeResult>("RoomUpgrade").implement({
  description: "A converged upgrade: the replacement is the page's active room, the old room superseded.",
  fields: (t) => ({
    roomId: t.exposeString("roomId", { description: "The upgraded (now superseded) room." }),
    siteId: t.exposeString("siteId"),
    pageSlug: t.exposeString("pageSlug"),
    replacementRoomId: t.exposeString("replacementRoomId", { description: "The page's active room now." }),
    roomVersion: t.exposeString("roomVersion", { description: "The replacement's room version." }),
    state: t.exposeString("state", { description: '"adopted".' }),
  }),
});

const UpgradeIntent = builder.objectRef<UpgradeIntentShape>("RoomUpgradeIntent").implement({
  fields: (t) => ({
    roomId: t.exposeString("roomId", { description: "The room being replaced." }),
    siteId: t.exposeString("siteId"),
    pageSlug: t.exposeString("pageSlug"),
    targetVersion: t.exposeString("targetVersion", {
      description: '"unknown" for a tombstone written by hand until it is adopted.',
    }),
    replacementRoomId: t.exposeString("replacementRoomId", {
      nullable: true,
      description: "The replacement the tombstone names, once observed.",
    }),
    state: t.exposeString("state", { description: "requested, observed, adopted, failed or manual." }),
    error: t.exposeString("error", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const QuarantinedRoom = builder.objectRef<QuarantinedRoomShape>("QuarantinedRoom").implement({
  fields: (t) => ({
    roomId: t.exposeString("roomId"),
    siteId: t.exposeString("siteId"),
    pageSlug: t.exposeString("pageSlug"),
    reason: t.exposeString("reason"),
    firstQuarantinedAt: t.expose("firstQuarantinedAt", { type: "DateTime" }),
    consecutiveFailures: t.exposeInt("failures", { description: "Consecutive failed adoption attempts." }),
    nextRetryAt: t.expose("nextRetryAt", {
      type: "DateTime",
      nullable: true,
      description: "null: manual attention (reinstate).",
    }),
  }),
});

const UpgradeIntentPage = builder.simpleObject("RoomUpgradeIntentPage", {
  fields: (t) => ({ data: t.field({ type: [UpgradeIntent] }), meta: t.field({ type: PaginationMeta }) }),
});
const QuarantinedRoomPage = builder.simpleObject("QuarantinedRoomPage", {
  fields: (t) => ({ data: t.field({ type: [QuarantinedRoom] }), meta: t.field({ type: PaginationMeta }) }),
});

builder.queryFields((t) => ({
  roomUpgradeIntents: t.field({
    type: UpgradeIntentPage,
    args: {
      page: t.arg.int({ defaultValue: DEFAULT_PAGE }),
      perPage: t.arg.int({ defaultValue: DEFAULT_PER_PAGE, description: `1-${MAX_PER_PAGE}` }),
      status: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.upgrades.list(args.page ?? DEFAULT_PAGE, args.perPage ?? DEFAULT_PER_PAGE, args.status ?? null),
  }),
  quarantinedRooms: t.field({
    type: QuarantinedRoomPage,
    args: {
      page: t.arg.int({ defaultValue: DEFAULT_PAGE }),
      perPage: t.arg.int({ defaultValue: DEFAULT_PER_PAGE, description: `1-${MAX_PER_PAGE}` }),
      siteId: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.quarantines.list(args.page ?? DEFAULT_PAGE, args.perPage ?? DEFAULT_PER_PAGE, args.siteId ?? null),
  }),
}));

builder.mutationFields((t) => ({
  upgradePageRoom: t.field({
    type: RoomUpgrade,
    description: "Upgrades a page's active room to a newer room version and waits until the replacement has converged.",
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string({ required: true }),
      newVersion: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) => ctx.services.upgrades.upgradePage(args.siteId, args.pageSlug, args.newVersion),
  }),
  upgradeRoom: t.field({
    type: RoomUpgrade,
    description: "Upgrades a page room named by its id.",
    args: { roomId: t.arg.string({ required: true }), newVersion: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.upgrades.upgradeRoom(args.roomId, args.newVersion),
  }),
  recoverRoomUpgrade: t.field({
    type: UpgradeIntent,
    description:
      "Adopts the replacement of a failed or manual upgrade intent after checking the tombstone and the replacement's create event.",
    args: {
      roomId: t.arg.string({ required: true }),
      newVersion: t.arg.string({ required: true }),
      replacementRoom: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) => ctx.services.upgrades.recover(args.roomId, args.newVersion, args.replacementRoom),
  }),
  reinstateRoom: t.boolean({
    description: "Ends a room's quarantine: it becomes the page's active room.",
    args: { roomId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await ctx.services.quarantines.reinstate(args.roomId);
      return true;
    },
  }),
}));
