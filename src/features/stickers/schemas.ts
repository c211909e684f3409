// The shapes of a site's sticker packs (MSC2545 image packs).
import { nullableString, ref, type JSONSchema } from "../../rest/schemas.ts";
import { PACK_ID_PATTERN, SHORTCODE_PATTERN } from "./image-pack.ts";

export const components = {
  StickerImage: {
    type: "object",
    required: ["shortcode", "url", "proxy_url", "body", "info"],
    properties: {
      shortcode: { type: "string" },
      url: { type: "string", description: "The image's mxc:// URL." },
      proxy_url: {
        type: ["string", "null"],
        description:
          "Signed preview URL (320x240 scale) of the media proxy, absolute; the mxc:// url when the proxy is disabled.",
      },
      body: { type: ["string", "null"], description: "The image's description (alt text), if the pack gives one." },
      info: {
        type: ["object", "null"],
        description: "Matrix ImageInfo (w, h, mimetype, size, …) as the pack gives it.",
      },
    },
  },
  StickerPack: {
    type: "object",
    description:
      "An MSC2545 image pack: the m.room.image_pack state event on the site's Space whose state key is pack_id. Only images usable as stickers are listed.",
    required: ["pack_id", "display_name", "avatar_url", "avatar_proxy_url", "images"],
    properties: {
      pack_id: { type: "string" },
      display_name: nullableString,
      avatar_url: { type: ["string", "null"], description: "The pack's mxc:// avatar." },
      avatar_proxy_url: {
        type: ["string", "null"],
        description: "Signed preview URL (96x96 crop) of the avatar; the mxc:// url when the proxy is disabled.",
      },
      images: { type: "array", items: ref("StickerImage"), description: "By shortcode." },
    },
  },
  StickerPacks: {
    type: "object",
    required: ["packs"],
    properties: { packs: { type: "array", items: ref("StickerPack"), description: "By pack_id." } },
  },
} as const satisfies Record<string, JSONSchema>;

export const requestBodies = {
  addSticker: {
    type: "object",
    additionalProperties: false,
    required: ["shortcode", "url"],
    properties: {
      shortcode: {
        type: "string",
        pattern: SHORTCODE_PATTERN,
        description: `The image's shortcode, ${SHORTCODE_PATTERN}; an existing one is replaced in place.`,
      },
      url: { type: "string", description: "mxc://<this service's homeserver>/<media id>, media id of [A-Za-z0-9_-]." },
      body: { type: "string", maxLength: 1000, description: "The image's description (alt text)." },
      info: {
        type: "object",
        description:
          "Matrix ImageInfo (w, h, mimetype, size, …), stored as given; as Matrix's canonical JSON requires, numbers must be integers within ±(2^53−1) (no floats), nested at most 32 levels (400 validation-error otherwise).",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const pathParams = {
  pack_id: {
    type: "string",
    pattern: PACK_ID_PATTERN,
    description: `A sticker pack id (the state key of its m.room.image_pack event): ${PACK_ID_PATTERN}.`,
  },
  shortcode: { type: "string", pattern: SHORTCODE_PATTERN, description: `An image's shortcode: ${SHORTCODE_PATTERN}.` },
} as const;
