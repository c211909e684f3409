// Media: the signed media proxy.
import type { BinaryRoute, Route } from "../../rest/route.ts";
import { SERVED_MEDIA_TYPES } from "./content-types.ts";
import { MAX_THUMBNAIL_SIDE, MEDIA_URL_VALIDITY_SECONDS, THUMBNAIL_METHODS } from "./signing.ts";
import type { MediaProxy, ProxyQuery } from "./proxy.ts";

declare module "../../rest/route.ts" {
  interface RouteServices {
    mediaProxy: MediaProxy;
  }
}

/** 1-4096 without leading zeros (query values are strings). */
const THUMBNAIL_SIDE = "^(?:[1-9][0-9]{0,2}|[1-3][0-9]{3}|40[0-8][0-9]|409[0-6])$";

export const getMedia: BinaryRoute = {
  kind: "binary",
  operationId: "getMedia",
  method: "GET",
  path: "/api/v1/media/{server}/{media_id}",
  tag: "Media",
  summary: "The bytes of a homeserver media item (or a thumbnail of it), through a signed URL.",
  description: [
    "Reads hand out these URLs in place of every mxc:// URL (when `media.proxy_enabled`); clients never build them.",
    "`sig` is the unpadded base64url HMAC-SHA256, keyed with a service-wide secret, of `server/media_id/width/height/method/expires`, absent thumbnail parameters signed as their defaults (width and height as the empty string, method as `scale`).",
    `A URL is valid for ${MEDIA_URL_VALIDITY_SECONDS / 60} minutes: \`expires\` is bucketed to whole minutes, so reads within one minute hand out identical URLs. A forged or altered URL is 403 invalid-media-signature (also for an expiry further out than the service signs); a genuine one past \`expires\` is 403 media-url-expired.`,
    "Only the configured homeserver's media is served (another server: 404 unknown-media-server). The service fetches it through the homeserver's authenticated media API (MSC3916) with its appservice token in a header, streams it under `media.proxy_max_bytes` (404 media-too-large when the homeserver declares more; a body growing past the cap is cut off, the connection reset) and waits `media.proxy_timeout_ms` at most for the homeserver (503 media-unavailable when it fails). No such media, or no thumbnail of it: 404 media-not-found.",
    "The Content-Type is canonical: the types listed here; anything else the homeserver labels otherwise (HTML, scripts, unknown types) is served as application/octet-stream. Common raster images and common audio/video are `inline`; SVG, PDF, octet-stream and the other types are `attachment`, with a server-generated filename (never the media id).",
    "Thumbnail presets the API uses: message and location thumbnails 320x240 scale, avatars 96x96 crop.",
  ].join("\n\n"),
  auth: "public",
  rateLimit: "mediaProxy",
  params: {
    server: {
      type: "string",
      minLength: 1,
      maxLength: 255,
      description: "The media's server name (percent-encoded; e.g. a port's `:`).",
    },
    media_id: {
      type: "string",
      pattern: "^[A-Za-z0-9_-]{1,255}$",
      description: "The media id: [A-Za-z0-9_-], at most 255 bytes.",
    },
  },
  query: {
    properties: {
      expires: {
        type: "string",
        pattern: "^[0-9]{1,15}$",
        description: "Integer: Unix time (seconds) the URL stops being valid.",
      },
      sig: { type: "string", maxLength: 256, description: "The signature (unpadded base64url)." },
      width: {
        type: "string",
        pattern: THUMBNAIL_SIDE,
        description: `Integer 1-${MAX_THUMBNAIL_SIDE}: thumbnail width; only together with height.`,
      },
      height: {
        type: "string",
        pattern: THUMBNAIL_SIDE,
        description: `Integer 1-${MAX_THUMBNAIL_SIDE}: thumbnail height; only together with width.`,
      },
      method: {
        enum: [...THUMBNAIL_METHODS],
        description: "Thumbnail method (default scale); only with width and height.",
      },
    },
    required: ["expires", "sig"],
  },
  respond: (input, services) =>
    services.mediaProxy.open(input.params.server!, input.params.media_id!, input.query as unknown as ProxyQuery),
  responses: {
    200: {
      description: "The media's bytes, streamed.",
      binary: SERVED_MEDIA_TYPES,
      headers: {
        "Content-Disposition":
          "`inline` or `attachment`, with a server-generated filename such as `image.png` or `file.bin`.",
        "Content-Security-Policy": "`default-src 'none'; sandbox`",
        "X-Content-Type-Options": "`nosniff`",
        "Cross-Origin-Resource-Policy": "`cross-origin`",
        "Referrer-Policy": "`no-referrer`",
        "Cache-Control":
          "`public, max-age=<seconds until expires>, immutable`: the bytes may be kept until the URL expires.",
        Expires: "The URL's expiry as an HTTP date.",
        "Content-Length": "When the homeserver declared the size (otherwise the body is chunked).",
      },
    },
  },
  problems: {
    400: ["validation-error"],
    403: ["invalid-media-signature", "media-url-expired"],
    404: ["unknown-media-server", "media-not-found", "media-too-large", "media-proxy-disabled"],
    429: ["rate-limited"],
    503: ["media-unavailable"],
  },
};

export const mediaRoutes: Route[] = [getMedia];
