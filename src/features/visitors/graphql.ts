// A visitor's profile on a site (src/features/visitors/profiles.ts), with its avatar as reads show media.
import { builder } from "../../graphql/builder.ts";
import type { VisitorProfile } from "./profiles.ts";
import { AvatarResultType } from "./operations/upload-avatar.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import type { VisitorProfiles } from "./profiles.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    profiles: VisitorProfiles;
  }
}

/** An avatar's mxc:// URL as responses show media: the signed proxy URL (96x96 crop), or the mxc:// URL with the proxy off. */
const shownAvatar = (ctx: GraphQLContext, mxc: string | null): string | null =>
  ctx.services.mediaUrls.present(mxc, "avatar", ctx.mediaBase);

export const VisitorProfileType = builder.objectRef<VisitorProfile>("VisitorProfile").implement({
  fields: (t) => ({
    displayName: t.exposeString("displayName", { nullable: true }),
    avatarUrl: t.string({
      nullable: true,
      description: "The avatar as a signed proxy URL (96x96 crop); its mxc:// URL when the media proxy is disabled.",
      resolve: (profile, _args, ctx) => shownAvatar(ctx, profile.avatarUrl),
    }),
  }),
});

/** The answer of an avatar write (and whether it replays an earlier one). */
AvatarResultType.implement({
  fields: (t) => ({
    avatarUrl: t.string({
      nullable: true,
      description:
        "The avatar as a signed proxy URL (96x96 crop); its mxc:// URL when the media proxy is disabled; null once deleted.",
      resolve: (avatar, _args, ctx) => shownAvatar(ctx, avatar.avatarUrl),
    }),
    replayed: t.exposeBoolean("replayed", {
      description: "True when this answers a retry with the same Idempotency-Key (the profile write is applied again).",
    }),
  }),
});

builder.queryField("visitorProfile", (t) =>
  t.field({
    type: VisitorProfileType,
    description:
      "The current display name and avatar of the visitor with this key on the site; null fields for an unknown visitor.",
    args: { siteId: t.arg.string({ required: true }), authorPublicKey: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.profiles.profile(args.siteId, args.authorPublicKey),
  }),
);
