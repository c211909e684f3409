// Operator site administration: the site listing with the [sites] overlay, origin revocation,
// secret and claim-token rotation, config snippets (src/features/operator/operator-sites.ts).
import { builder } from "../../graphql/builder.ts";
import { SiteClaimToken, SiteSecret } from "../sites/graphql.ts";
import { DEFAULT_PAGE, DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../../core/pagination.ts";
import {
  configSnippet,
  listOperatorSites,
  removeSecret,
  revokeOrigin,
  rotateClaimToken,
  rotateSecret,
  type OperatorSite as OperatorSiteShape,
} from "./operator-sites.ts";
import { PaginationMeta } from "../comments/graphql.ts";

const OperatorSiteOrigin = builder
  .objectRef<OperatorSiteShape["verifiedOrigins"][number]>("OperatorSiteOrigin")
  .implement({
    fields: (t) => ({
      origin: t.exposeString("origin"),
      source: t.exposeString("source", {
        description: '"verified" (proved through verification) or "config" (declared in [sites]).',
      }),
    }),
  });

const OperatorSite = builder.objectRef<OperatorSiteShape>("OperatorSite").implement({
  description: "A site as the operator sees it: its database row merged with the [sites] overlay.",
  fields: (t) => ({
    siteId: t.exposeString("siteId"),
    source: t.exposeString("source", { description: '"config" when declared in [sites], else "api".' }),
    status: t.exposeString("status", { description: '"active" or "retiring".' }),
    idGenerated: t.exposeBoolean("idGenerated", {
      description: "The server generated the id (registration without a body).",
    }),
    verified: t.exposeBoolean("verified", {
      description: "Ownership is proven: declared in [sites], or at least one origin verified.",
    }),
    verifiedOrigins: t.expose("verifiedOrigins", {
      type: [OperatorSiteOrigin],
      description: "Origins allowed to write, by origin.",
    }),
    hasSecret: t.boolean({
      resolve: (site) => site.secretSource !== null,
      description: "Writes need HMAC signatures.",
    }),
    secretSource: t.exposeString("secretSource", {
      nullable: true,
      description: '"api", "config" or null (no secret).',
    }),
    spaceRoomId: t.exposeString("spaceRoomId", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const OperatorSitePage = builder.simpleObject("OperatorSitePage", {
  fields: (t) => ({ data: t.field({ type: [OperatorSite] }), meta: t.field({ type: PaginationMeta }) }),
});

const SiteConfigSnippet = builder.simpleObject("SiteConfigSnippet", {
  fields: (t) => ({
    siteId: t.string(),
    toml: t.string({ description: "A [sites.<site_id>] table with the site's origins and secret." }),
  }),
});

builder.queryField("operatorSites", (t) =>
  t.field({
    type: OperatorSitePage,
    description: "Every tracked site merged with the [sites] overlay, by site id.",
    args: {
      page: t.arg.int({ defaultValue: DEFAULT_PAGE }),
      perPage: t.arg.int({ defaultValue: DEFAULT_PER_PAGE, description: `1-${MAX_PER_PAGE}` }),
      siteId: t.arg.string({ description: "Only this site." }),
    },
    resolve: (_root, args, ctx) =>
      listOperatorSites(ctx.services, {
        page: args.page ?? DEFAULT_PAGE,
        perPage: args.perPage ?? DEFAULT_PER_PAGE,
        siteId: args.siteId ?? null,
      }),
  }),
);

builder.queryField("siteConfigSnippet", (t) =>
  t.field({
    type: SiteConfigSnippet,
    description: "The site as a [sites] declaration, for moving it into the configuration.",
    args: { siteId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => configSnippet(ctx.services, args.siteId),
  }),
);

builder.mutationField("operatorRevokeOrigin", (t) =>
  t.field({
    type: OperatorSite,
    description: "Removes a verified origin; origins declared in [sites] cannot be revoked.",
    args: { siteId: t.arg.string({ required: true }), origin: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => revokeOrigin(ctx.services, args.siteId, args.origin),
  }),
);

builder.mutationField("operatorRotateSecret", (t) =>
  t.field({
    type: SiteSecret,
    description: "Issues or replaces the site's HMAC secret; refused when [sites] declares it.",
    args: { siteId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => rotateSecret(ctx.services, args.siteId),
  }),
);

builder.mutationField("operatorRemoveSecret", (t) =>
  t.field({
    type: OperatorSite,
    description: "Removes the site's HMAC secret (origin auth applies again); refused when [sites] declares it.",
    args: { siteId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => removeSecret(ctx.services, args.siteId),
  }),
);

builder.mutationField("operatorRotateClaimToken", (t) =>
  t.field({
    type: SiteClaimToken,
    description: "Issues a new claim token; the old one stops working at once.",
    args: { siteId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => rotateClaimToken(ctx.services, args.siteId),
  }),
);
