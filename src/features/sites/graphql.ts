import { builder } from "../../graphql/builder.ts";
import type { Sites } from "./sites.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    sites: Sites;
  }
}

const SiteOrigin = builder.prismaObject("SiteOrigin", {
  fields: (t) => ({
    origin: t.exposeString("origin"),
    source: t.exposeString("source", { description: '"verified" or "config".' }),
  }),
});

export const Site = builder.prismaObject("Site", {
  description: "A site: registered through the API or declared in [sites].",
  fields: (t) => ({
    id: t.exposeString("id"),
    source: t.exposeString("source", { description: '"api" or "config".' }),
    status: t.exposeString("status", { description: '"active" or "retiring".' }),
    spaceRoomId: t.exposeString("spaceRoomId", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    origins: t.relation("origins", { type: SiteOrigin }),
    verifiedOrigins: t.stringList({
      select: { origins: { select: { origin: true } } },
      resolve: (site) => site.origins.map((o) => o.origin),
    }),
  }),
});

/** A site's claim token, shown once: at registration and at every rotation. */
export const SiteClaimToken = builder.simpleObject("SiteClaimToken", {
  fields: (t) => ({
    siteId: t.string(),
    claimToken: t.string({ description: "Shown once; only its hash is stored." }),
  }),
});

/** A site's HMAC secret, shown once: when issued or rotated. */
export const SiteSecret = builder.simpleObject("SiteSecret", {
  fields: (t) => ({
    siteId: t.string(),
    secret: t.string({ description: "The HMAC key; shown once." }),
  }),
});

builder.queryField("site", (t) =>
  t.prismaField({
    type: "Site",
    nullable: true,
    args: { id: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.sites.store.findForQuery(query, args.id),
  }),
);

builder.queryField("sites", (t) =>
  t.prismaField({
    type: ["Site"],
    resolve: (query, _root, _args, ctx) => ctx.services.sites.store.listForQuery(query),
  }),
);

builder.mutationField("registerSite", (t) =>
  t.field({
    type: SiteClaimToken,
    description: "Registers a site under the chosen id, or a generated one.",
    args: { siteId: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => ctx.services.sites.register(args.siteId ?? null),
  }),
);

builder.mutationField("issueSiteSecret", (t) =>
  t.field({
    type: SiteSecret,
    description:
      "Issues the site's HMAC secret (rotate: replaces an existing one). Callers acting for the owner check the claim token first (Sites.requireClaim); REST does.",
    args: { siteId: t.arg.string({ required: true }), rotate: t.arg.boolean({ required: false }) },
    resolve: (_root, args, ctx) => ctx.services.sites.issueSecret(args.siteId, args.rotate ?? false),
  }),
);

builder.mutationField("updateSiteSettings", (t) =>
  t.field({
    type: builder.simpleObject("SiteSettings", {
      fields: (f) => ({ siteId: f.string(), pageUrlPattern: f.string({ nullable: true }) }),
    }),
    description:
      "The owner's site settings (the page URL pattern). Callers acting for the owner check the claim token first (Sites.requireClaim); REST does.",
    args: { siteId: t.arg.string({ required: true }), pageUrlPattern: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => ctx.services.sites.updateSettings(args.siteId, args.pageUrlPattern ?? null),
  }),
);
