import { builder } from "../../graphql/builder.ts";
import { MAX_CONFIRM_ATTEMPTS, VERIFICATION_TTL_HOURS } from "./verifications.ts";
import type { Verifications } from "./verifications.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    verifications: Verifications;
  }
}

const OriginVerification = builder.simpleObject("OriginVerification", {
  description: `A pending origin verification: the token to publish, valid for ${VERIFICATION_TTL_HOURS} hours and ${MAX_CONFIRM_ATTEMPTS} confirm attempts.`,
  fields: (t) => ({
    origin: t.string({ description: "The origin, normalized (scheme://host[:port], default port dropped)." }),
    token: t.string(),
    expiresAt: t.field({ type: "DateTime" }),
    methods: t.stringList({ description: 'The methods confirm tries, in order: "well-known", "dns-txt".' }),
    instructions: t.field({ type: "JSON", description: "Per method: exactly what to publish where." }),
  }),
});

builder.mutationField("startOriginVerification", (t) =>
  t.field({
    type: OriginVerification,
    description: "Starts (or restarts, replacing the pending token) the verification of an origin of a site.",
    args: {
      siteId: t.arg.string({ required: true }),
      origin: t.arg.string({ required: true }),
      methods: t.arg.stringList({
        required: false,
        description: "In the order confirm tries them; default every method that applies.",
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.verifications.start(args.siteId, args.origin, args.methods ?? null),
  }),
);

builder.mutationField("confirmOriginVerification", (t) =>
  t.prismaField({
    type: "Site",
    description: "Looks for the pending token of an origin; on a match the origin is verified and the site returned.",
    args: { siteId: t.arg.string({ required: true }), origin: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      await ctx.services.verifications.confirm(args.siteId, args.origin);
      return ctx.services.sites.store.findOrThrowForQuery(query, args.siteId);
    },
  }),
);
