// Handing out media: the signed proxy URL of an mxc:// reference, and the base URL proxy URLs
// are absolute against.
import type { RequestHead } from "../../core/request.ts";
import {
  checkMediaSignature,
  expiryFor,
  mediaSignature,
  MEDIA_ID_PATTERN,
  type MediaTarget,
  type SignatureCheck,
  type Thumbnail,
} from "./signing.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    mediaUrls: MediaUrls;
  }
}

/** The path every proxy URL starts with (after the base). */
export const MEDIA_PROXY_PATH = "/api/v1/media";

/**
 * How a reference is shown: message (and location) thumbnails 320x240 scale, avatars 96x96
 * crop, original = the media itself.
 */
export type MediaPreset = "message" | "avatar" | "original";

export const MEDIA_PRESETS: Record<MediaPreset, Thumbnail | null> = {
  message: { width: 320, height: 240, method: "scale" },
  avatar: { width: 96, height: 96, method: "crop" },
  original: null,
};

/** `mxc://<server>/<media_id>` split, or null when `url` is not an mxc URL. */
export function parseMxc(url: string): { server: string; mediaId: string } | null {
  const match = /^mxc:\/\/([^/?#\s]+)\/([^/?#\s]+)$/.exec(url);
  return match ? { server: match[1]!, mediaId: match[2]! } : null;
}

export interface MediaUrlOptions {
  /** media.proxy_enabled: whether reads rewrite mxc URLs to proxy URLs. */
  enabled: boolean;
  /** The configured homeserver's server name: the only server the proxy serves. */
  serverName: string;
  /** server.public_base_url (no trailing slash), or null. */
  publicBaseUrl: string | null;
}

/** A Host or X-Forwarded-Host value usable in a URL: a DNS name or IP literal, optional port. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The first value of a comma-separated (proxy-appended) header: the one nearest the client. */
const firstValue = (value: string | undefined): string | undefined => value?.split(",")[0]!.trim() || undefined;

export class MediaUrls {
  constructor(
    private readonly key: Buffer,
    private readonly options: MediaUrlOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Whether the proxy serves `server`'s media (only the configured homeserver's). */
  servesServer(server: string): boolean {
    return server === this.options.serverName;
  }

  /**
   * The signed proxy URL of `mxc` with `preset`, absolute against `base` (API-relative when
   * null); null for anything the proxy cannot serve: not an mxc URL, another server's media, a
   * media id outside `[A-Za-z0-9_-]{1,255}`. Signs whether or not the proxy is enabled; reads
   * use `present`.
   */
  sign(mxc: string, preset: MediaPreset, base: string | null): string | null {
    const parsed = parseMxc(mxc);
    if (!parsed || !this.servesServer(parsed.server) || !MEDIA_ID_PATTERN.test(parsed.mediaId)) return null;
    const target: MediaTarget = { thumbnail: MEDIA_PRESETS[preset], ...parsed };
    const expires = expiryFor(this.now());
    const query = new URLSearchParams();
    if (target.thumbnail) {
      query.set("width", String(target.thumbnail.width));
      query.set("height", String(target.thumbnail.height));
      query.set("method", target.thumbnail.method);
    }
    query.set("expires", String(expires));
    query.set("sig", mediaSignature(this.key, target, expires));
    return `${base ?? ""}${MEDIA_PROXY_PATH}/${encodeURIComponent(target.server)}/${target.mediaId}?${query}`;
  }

  /** Whether `sig` is this service's signature of `target` until `expires`, now. */
  check(target: MediaTarget, expires: number, sig: string): SignatureCheck {
    return checkMediaSignature(this.key, target, expires, sig, this.now());
  }

  /**
   * A media reference as reads show it: with the proxy enabled, the signed proxy URL; an mxc URL
   * the proxy cannot serve (another server's) and every mxc URL with the proxy disabled stay raw
   * mxc. Anything that is not an mxc URL (an http: or javascript: URL in a Matrix-native event)
   * is never handed to a page: null.
   */
  present(url: string | null | undefined, preset: MediaPreset, base: string | null): string | null {
    if (typeof url !== "string" || !parseMxc(url)) return null;
    return (this.enabled && this.sign(url, preset, base)) || url;
  }

  /**
   * The base proxy URLs are absolute against: server.public_base_url when configured; else the
   * request's Host over http, or X-Forwarded-Host / X-Forwarded-Proto when the peer is a trusted
   * proxy; null (API-relative URLs) without a request or a usable host.
   */
  resolveBase(request: Pick<RequestHead, "headers" | "viaTrustedProxy"> | null): string | null {
    if (this.options.publicBaseUrl) return this.options.publicBaseUrl;
    if (!request) return null;
    const { headers } = request;
    const forwardedHost = request.viaTrustedProxy ? firstValue(headers["x-forwarded-host"]) : undefined;
    const forwardedProto = request.viaTrustedProxy
      ? firstValue(headers["x-forwarded-proto"])?.toLowerCase()
      : undefined;
    const host = forwardedHost && HOST.test(forwardedHost) ? forwardedHost : headers.host;
    if (!host || !HOST.test(host)) return null;
    const scheme = forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : "http";
    return `${scheme}://${host.toLowerCase()}`;
  }
}
