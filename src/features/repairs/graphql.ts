// Projection repairs for the operator (src/features/repairs/repairs.ts).
import { builder } from "../../graphql/builder.ts";
import { DEFAULT_PAGE, DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../../core/pagination.ts";
import { PaginationMeta } from "../comments/graphql.ts";
import type { Repair, Repairs } from "./repairs.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    repairs: Repairs;
  }
}

const ProjectionRepair = builder.objectRef<Repair>("ProjectionRepair").implement({
  description: "A pushed event that could not be applied, skipped so it blocks nothing, with its diagnostics.",
  fields: (t) => ({
    targetEventId: t.exposeString("targetEventId"),
    roomId: t.exposeString("roomId", { nullable: true }),
    eventType: t.exposeString("eventType", { nullable: true }),
    reason: t.exposeString("reason"),
    status: t.exposeString("status", { description: "pending (retried automatically), manual or resolved." }),
    attempts: t.exposeInt("attempts"),
    nextRetryAt: t.expose("nextRetryAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const ProjectionRepairPage = builder.simpleObject("ProjectionRepairPage", {
  fields: (t) => ({ data: t.field({ type: [ProjectionRepair] }), meta: t.field({ type: PaginationMeta }) }),
});

builder.queryFields((t) => ({
  projectionRepairs: t.field({
    type: ProjectionRepairPage,
    args: {
      page: t.arg.int({ defaultValue: DEFAULT_PAGE }),
      perPage: t.arg.int({ defaultValue: DEFAULT_PER_PAGE, description: `1-${MAX_PER_PAGE}` }),
      status: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.repairs.list(args.page ?? DEFAULT_PAGE, args.perPage ?? DEFAULT_PER_PAGE, args.status ?? null),
  }),
  projectionRepair: t.field({
    type: ProjectionRepair,
    args: { targetEventId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.repairs.get(args.targetEventId),
  }),
}));

builder.mutationField("retryProjectionRepair", (t) =>
  t.field({
    type: ProjectionRepair,
    description: "Requeues a pending or manual repair: the repair pass applies its event again soon.",
    args: { targetEventId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.repairs.retry(args.targetEventId),
  }),
);
