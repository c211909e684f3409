// Media references in a Message's typed content as reads show them: signed proxy URLs when the
// proxy is enabled (src/features/media/proxy-urls.ts decides what each reference becomes).
import type { MediaUrls } from "./proxy-urls.ts";

/** Image types the homeserver makes thumbnails of: an image without its own thumbnail gets one of itself. */
const THUMBNAILABLE: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const str = (value: unknown): string | null => (typeof value === "string" ? value : null);

/**
 * `content` with its media references presented: a media variant's `url` (the original) and
 * `thumbnail_url` (message preset), a location's `thumbnail_url` (message preset). With the
 * proxy enabled, an image without a thumbnail is given the message-preset thumbnail of itself.
 * Other variants are returned as they are (an unknown event's `raw` stays raw).
 */
export function presentContent(
  content: Record<string, unknown>,
  urls: MediaUrls,
  base: string | null,
): Record<string, unknown> {
  if (content.type === "media") {
    const url = str(content.url);
    const thumbnail = str(content.thumbnail_url);
    const ownThumbnail =
      thumbnail === null && urls.enabled && THUMBNAILABLE.has(str(content.mimetype) ?? "") ? url : thumbnail;
    return {
      ...content,
      url: urls.present(url, "original", base),
      thumbnail_url: urls.present(ownThumbnail, "message", base),
    };
  }
  if (content.type === "location")
    return { ...content, thumbnail_url: urls.present(str(content.thumbnail_url), "message", base) };
  return content;
}
