// Site and page retirement: requests (src/features/retirement/requests.ts) and their state. Who may ask
// is the caller's concern: the REST adapter checks claim or operator tokens, /graphql is
// operator-only.
import { builder } from "../../graphql/builder.ts";
import type { RetirementState } from "./requests.ts";
import type { Retirements } from "./requests.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    retirements: Retirements;
  }
}

const RetirementStateType = builder.objectRef<RetirementState>("RetirementState").implement({
  fields: (t) => ({
    targetType: t.exposeString("targetType", { description: '"site", "page" or "room".' }),
    targetId: t.exposeString("targetId", { description: "The site id, site_id/page_slug, or the room id." }),
    siteId: t.exposeString("siteId"),
    pageSlug: t.exposeString("pageSlug", { nullable: true }),
    state: t.exposeString("state", {
      description: '"retiring" once requested; before that "active" (a room may also be "superseded").',
    }),
  }),
});

builder.mutationFields((t) => ({
  retireSite: t.field({
    type: RetirementStateType,
    description:
      "Retires a site: writes stop and its claim token is invalidated at once; the Matrix clean-up follows in the background.",
    args: { siteId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.retirements.retireSite(args.siteId),
  }),
  retirePage: t.field({
    type: RetirementStateType,
    description:
      "Retires a page's active room: writes to the page stop at once; the Matrix clean-up follows in the background.",
    args: { siteId: t.arg.string({ required: true }), pageSlug: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.retirements.retirePage(args.siteId, args.pageSlug),
  }),
  retireRoom: t.field({
    type: RetirementStateType,
    description: "Retires the page an active room belongs to, named by the room.",
    args: { roomId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.retirements.retireRoom(args.roomId),
  }),
}));

builder.queryFields((t) => ({
  siteRetirement: t.field({
    type: RetirementStateType,
    args: { siteId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.retirements.siteRetirement(args.siteId),
  }),
  pageRetirement: t.field({
    type: RetirementStateType,
    args: { siteId: t.arg.string({ required: true }), pageSlug: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.retirements.pageRetirement(args.siteId, args.pageSlug),
  }),
  roomRetirement: t.field({
    type: RetirementStateType,
    args: { roomId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.retirements.roomRetirement(args.roomId),
  }),
}));
