// A site's sticker packs (src/features/stickers/packs.ts): the public listing, and one-image edits. Who
// may edit is the caller's concern: the REST adapter checks claim or operator tokens, /graphql
// is operator-only.
import { builder } from "../../graphql/builder.ts";
import type { StickerImage, StickerPack } from "./image-pack.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import type { MediaPreset } from "../media/proxy-urls.ts";
import type { StickerPacks } from "./packs.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    stickers: StickerPacks;
  }
}

/** The signed proxy URL of an mxc:// url (the raw url when the proxy is off), absolute against the request's base. */
const proxied = (ctx: GraphQLContext, url: string | null, preset: MediaPreset): string | null =>
  ctx.services.mediaUrls.present(url, preset, ctx.mediaBase);

const StickerImageType = builder.objectRef<StickerImage>("StickerImage").implement({
  fields: (t) => ({
    shortcode: t.exposeString("shortcode"),
    url: t.exposeString("url", { description: "The image's mxc:// URL." }),
    proxyUrl: t.string({
      nullable: true,
      description:
        "A signed preview URL (320x240 scale) of the media proxy; the mxc:// url when the proxy is disabled.",
      resolve: (image, _args, ctx) => proxied(ctx, image.url, "message"),
    }),
    body: t.exposeString("body", {
      nullable: true,
      description: "The image's description (alt text), if the pack gives one.",
    }),
    info: t.expose("info", {
      type: "JSON",
      nullable: true,
      description: "Matrix ImageInfo (w, h, mimetype, size, …) as the pack gives it.",
    }),
  }),
});

const StickerPackType = builder.objectRef<StickerPack>("StickerPack").implement({
  fields: (t) => ({
    packId: t.exposeString("packId", {
      description: "The state key of the pack's m.room.image_pack event on the site's Space.",
    }),
    displayName: t.exposeString("displayName", { nullable: true }),
    avatarUrl: t.exposeString("avatarUrl", { nullable: true, description: "The pack's mxc:// avatar." }),
    avatarProxyUrl: t.string({
      nullable: true,
      description: "A signed preview URL (96x96 crop) of the pack's avatar; its mxc:// url when the proxy is disabled.",
      resolve: (pack, _args, ctx) => proxied(ctx, pack.avatarUrl, "avatar"),
    }),
    images: t.expose("images", {
      type: [StickerImageType],
      description: "The images usable as stickers, by shortcode.",
    }),
  }),
});

const StickerPacksType = builder.simpleObject("StickerPacks", {
  fields: (t) => ({ packs: t.field({ type: [StickerPackType] }) }),
});

builder.queryField("stickerPacks", (t) =>
  t.field({
    type: StickerPacksType,
    description: "A site's sticker packs, by pack id.",
    args: { siteId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => ({ packs: await ctx.services.stickers.list(args.siteId) }),
  }),
);

builder.mutationFields((t) => ({
  addSticker: t.field({
    type: StickerPackType,
    description:
      "Adds or replaces one image of a pack, creating the pack (and the site's Space) when needed; answers the updated pack.",
    args: {
      siteId: t.arg.string({ required: true }),
      packId: t.arg.string({ required: true }),
      shortcode: t.arg.string({ required: true }),
      url: t.arg.string({ required: true }),
      body: t.arg.string(),
      info: t.arg({ type: "JSON" }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.stickers.addImage(args.siteId, args.packId, {
        shortcode: args.shortcode,
        url: args.url,
        body: args.body ?? null,
        info: (args.info as Record<string, unknown> | null | undefined) ?? null,
      }),
  }),
  removeSticker: t.field({
    type: StickerPackType,
    description: "Removes one image of a pack; a missing image is a no-op. Answers the pack.",
    args: {
      siteId: t.arg.string({ required: true }),
      packId: t.arg.string({ required: true }),
      shortcode: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) => ctx.services.stickers.removeImage(args.siteId, args.packId, args.shortcode),
  }),
}));
