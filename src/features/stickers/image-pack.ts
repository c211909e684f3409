// MSC2545 image packs (`m.room.image_pack` state on a site's Space, state_key = pack id) as the
// API shows them, and the one-image edits the sticker routes make. Pure: no I/O.
import { obj, str } from "../../projection/room-event.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

export const IMAGE_PACK_EVENT = EventType.ImagePack;

/** What pack ids and shortcodes written through the API must match (documented in the OpenAPI document). */
export const PACK_ID_PATTERN = "^[A-Za-z0-9_.-]{1,64}$";
export const SHORTCODE_PATTERN = PACK_ID_PATTERN;

export interface StickerImage {
  shortcode: string;
  url: string;
  body: string | null;
  info: Record<string, unknown> | null;
}

export interface StickerPack {
  packId: string;
  displayName: string | null;
  avatarUrl: string | null;
  images: StickerImage[];
}

export type PackContent = Record<string, unknown>;

const usage = (value: unknown): string[] | null =>
  Array.isArray(value) ? value.filter((u): u is string => typeof u === "string") : null;

/**
 * Whether an image may be sent as a sticker: its own `usage`, else the pack's, else (neither
 * given) every usage, as MSC2545 says.
 */
function isSticker(image: Record<string, unknown>, pack: Record<string, unknown>): boolean {
  const effective = usage(image.usage) ?? usage(pack.usage);
  return effective === null || effective.length === 0 || effective.includes("sticker");
}

/**
 * A pack as the API lists it: only images usable as stickers, by shortcode (homeserver-stored
 * JSON keeps no key order); entries a Matrix client wrote without an mxc:// url are skipped.
 */
export function readPack(packId: string, content: PackContent): StickerPack {
  const pack = obj(content.pack) ?? {};
  const images: StickerImage[] = [];
  for (const [shortcode, value] of Object.entries(obj(content.images) ?? {})) {
    const image = obj(value);
    const url = str(image?.url);
    if (!image || !url?.startsWith("mxc://") || !isSticker(image, pack)) continue;
    images.push({ shortcode, url, body: str(image.body), info: obj(image.info) });
  }
  images.sort((a, b) => (a.shortcode < b.shortcode ? -1 : a.shortcode > b.shortcode ? 1 : 0));
  const avatarUrl = str(pack.avatar_url);
  return {
    packId,
    displayName: str(pack.display_name),
    avatarUrl: avatarUrl?.startsWith("mxc://") ? avatarUrl : null,
    images,
  };
}

/**
 * The content with one image added or replaced. A new pack is
 * named after its id and used for stickers; an image added to a pack that is not used for
 * stickers gets its own `usage: ["sticker"]`, so it is listed. Everything else a Matrix client put
 * in the content is kept.
 */
export function withImage(content: PackContent | null, packId: string, image: StickerImage): PackContent {
  const base = content ?? { pack: { display_name: packId, usage: ["sticker"] } };
  const pack = obj(base.pack) ?? {};
  const entry: Record<string, unknown> = { url: image.url };
  if (image.body !== null) entry.body = image.body;
  if (image.info !== null) entry.info = image.info;
  if (!isSticker({}, pack)) entry.usage = ["sticker"];
  return { ...base, images: { ...(obj(base.images) ?? {}), [image.shortcode]: entry } };
}

/** The content without the image, or null when it has no such image (nothing to write). */
export function withoutImage(content: PackContent | null, shortcode: string): PackContent | null {
  const images = obj(content?.images);
  if (!content || !images || !Object.hasOwn(images, shortcode)) return null;
  const { [shortcode]: _removed, ...rest } = images;
  return { ...content, images: rest };
}
