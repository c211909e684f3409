// Role rosters of a page room and of a site, read from power levels.
import { builder } from "../../graphql/builder.ts";
import { pageRoles, siteRoles, type PageRoster } from "./rooms.ts";
import type { Rosters, RosterEntry } from "./roles.ts";

const RoleMember = builder.objectRef<RosterEntry>("RoleMember").implement({
  description: "A user holding a role. Rosters list them by level descending, then user id.",
  fields: (t) => ({
    userId: t.exposeString("userId"),
    // Float: Matrix levels are integers up to 2^53, beyond GraphQL's 32-bit Int.
    level: t.exposeFloat("level", { description: "The user's power level (an integer)." }),
  }),
});

const ADMINS = "Level 100 and above.";
const MANAGERS = "Levels 75-99.";
const MODERATORS = "Levels 50-74.";

const PageRoles = builder.objectRef<PageRoster>("PageRoles").implement({
  description: "Roles in a page room, from its power levels.",
  fields: (t) => ({
    siteId: t.exposeString("siteId"),
    pageSlug: t.exposeString("pageSlug"),
    roomId: t.exposeString("roomId"),
    admins: t.expose("admins", { type: [RoleMember], description: ADMINS }),
    managers: t.expose("managers", { type: [RoleMember], description: MANAGERS }),
    moderators: t.expose("moderators", { type: [RoleMember], description: MODERATORS }),
  }),
});

const SiteRoles = builder.objectRef<Rosters>("SiteRoles").implement({
  description: "Site-wide roles, from the site Space's power levels (empty before the Space exists).",
  fields: (t) => ({
    admins: t.expose("admins", { type: [RoleMember], description: ADMINS }),
    managers: t.expose("managers", { type: [RoleMember], description: MANAGERS }),
  }),
});

builder.queryField("pageRoles", (t) =>
  t.field({
    type: PageRoles,
    args: { siteId: t.arg.string({ required: true }), pageSlug: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => pageRoles(ctx.services, args.siteId, args.pageSlug),
  }),
);

builder.queryField("siteRoles", (t) =>
  t.field({
    type: SiteRoles,
    args: { siteId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => siteRoles(ctx.services, args.siteId),
  }),
);
