// The signed media proxy: checks a proxy URL, fetches the media (or its thumbnail) from the
// homeserver's authenticated media API (MSC3916) as the appservice, and streams it back under
// a size cap with headers that keep browsers from treating it as anything but media.
import { Readable, Transform, pipeline } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { DomainError, forbidden, notFound, validationError } from "../../core/errors.ts";
import { contentDisposition, servedType } from "./content-types.ts";
import type { MediaUrls } from "./proxy-urls.ts";
import { DEFAULT_THUMBNAIL_METHOD, type MediaTarget, type ThumbnailMethod } from "./signing.ts";

export interface MediaProxyOptions {
  homeserverUrl: string;
  asToken: string;
  /** media.proxy_max_bytes */
  maxBytes: number;
  /** media.proxy_timeout_ms: for the homeserver's answer to start, then between two chunks. */
  timeoutMs: number;
}

/** The proxy's query parameters, as the route table validated them (all strings). */
export interface ProxyQuery {
  expires: string;
  sig: string;
  width?: string;
  height?: string;
  method?: string;
}

/** A 200 whose body is streamed to the client. */
export interface StreamedMedia {
  headers: Record<string, string>;
  body: Readable;
}

/** Headers on every success: the bytes are never a document, script or sniffable. */
const SAFE_MEDIA_HEADERS = {
  "Content-Security-Policy": "default-src 'none'; sandbox",
  "X-Content-Type-Options": "nosniff",
  "Cross-Origin-Resource-Policy": "cross-origin",
  "Referrer-Policy": "no-referrer",
} as const;

const unavailable = (why: string) =>
  new DomainError("media-unavailable", 503, `The homeserver could not provide the media (${why}); retry later.`);

export class MediaProxy {
  constructor(
    private readonly urls: MediaUrls,
    private readonly options: MediaProxyOptions,
    private readonly now: () => number = Date.now,
  ) {}

  async open(server: string, mediaId: string, query: ProxyQuery): Promise<StreamedMedia> {
    if (!this.urls.enabled)
      throw notFound(
        "media-proxy-disabled",
        "The media proxy is disabled on this service (media.proxy_enabled = false).",
      );
    const target: MediaTarget = { server, mediaId, thumbnail: thumbnailOf(query) };
    if (!this.urls.servesServer(server))
      throw notFound("unknown-media-server", `This service serves media of its own homeserver only, not of ${server}.`);
    const expires = Number(query.expires);
    const check = this.urls.check(target, expires, query.sig);
    if (check === "invalid")
      throw forbidden("invalid-media-signature", "The media URL's signature is not valid for these parameters.");
    if (check === "expired")
      throw forbidden("media-url-expired", "The media URL has expired; read the comments again for a fresh one.");
    const upstream = await this.fetch(target);
    const declared = Number(upstream.headers.get("content-length") ?? NaN);
    // Content-Length can be trusted as the body size only when nothing was decoded on the way.
    const length = Number.isSafeInteger(declared) && !upstream.headers.get("content-encoding") ? declared : null;
    if (length !== null && length > this.options.maxBytes) {
      await upstream.body?.cancel();
      throw notFound(
        "media-too-large",
        `The media is larger than this service serves (${this.options.maxBytes} bytes).`,
      );
    }
    const type = servedType(upstream.headers.get("content-type"));
    const maxAge = Math.max(0, expires - Math.floor(this.now() / 1000));
    return {
      headers: {
        "Content-Type": type.contentType,
        "Content-Disposition": contentDisposition(type),
        "Cache-Control": `public, max-age=${maxAge}, immutable`,
        Expires: new Date(expires * 1000).toUTCString(),
        ...SAFE_MEDIA_HEADERS,
        ...(length !== null ? { "Content-Length": String(length) } : {}),
      },
      body: this.capped(upstream),
    };
  }

  /** The media's response once its headers arrived (only 200s); the token travels in a header. */
  private async fetch(target: MediaTarget): Promise<Response & { body: WebReadableStream<Uint8Array> }> {
    const enc = encodeURIComponent;
    const { thumbnail } = target;
    const path = thumbnail
      ? `/_matrix/client/v1/media/thumbnail/${enc(target.server)}/${enc(target.mediaId)}?${new URLSearchParams({ width: String(thumbnail.width), height: String(thumbnail.height), method: thumbnail.method, animated: "false" })}`
      : `/_matrix/client/v1/media/download/${enc(target.server)}/${enc(target.mediaId)}`;
    // Until the answer starts; the body has its own stall timer (capped).
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.options.timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${this.options.homeserverUrl}${path}`, {
        headers: { Authorization: `Bearer ${this.options.asToken}`, "Accept-Encoding": "identity" },
        // A redirect could carry the request (and the token) elsewhere.
        redirect: "error",
        signal: abort.signal,
      });
    } catch {
      throw unavailable(abort.signal.aborted ? "timed out" : "unreachable");
    } finally {
      clearTimeout(timer);
    }
    if (response.ok && response.body) return response as Response & { body: WebReadableStream<Uint8Array> };
    await response.body?.cancel();
    // 404: no such media; 400 from the thumbnail endpoint: no thumbnail of this media.
    if (response.status === 404 || (thumbnail && response.status === 400))
      throw notFound("media-not-found", "The homeserver has no such media.");
    throw unavailable(`status ${response.status}`);
  }

  /**
   * The body as it arrives, cut off (the client's response destroyed, never ended as if whole)
   * past the cap or when the homeserver stalls.
   */
  private capped(upstream: Response & { body: WebReadableStream<Uint8Array> }): Readable {
    const { maxBytes, timeoutMs } = this.options;
    const source = Readable.fromWeb(upstream.body);
    let seen = 0;
    const stall = setTimeout(() => source.destroy(unavailable("stalled")), timeoutMs);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        stall.refresh();
        seen += chunk.length;
        done(seen > maxBytes ? notFound("media-too-large", "The media grew past the proxy's size cap.") : null, chunk);
      },
    });
    pipeline(source, counter, () => clearTimeout(stall));
    return counter;
  }
}

/** The thumbnail a query asks for: width and height together, method only with them. */
function thumbnailOf(query: ProxyQuery): MediaTarget["thumbnail"] {
  const { width, height, method } = query;
  if (width === undefined && height === undefined) {
    if (method !== undefined)
      throw validationError("method applies to thumbnails only: give width and height too.", [
        { field: "method", message: "needs width and height" },
      ]);
    return null;
  }
  if (width === undefined || height === undefined) {
    throw validationError("width and height must be given together.", [
      { field: width === undefined ? "width" : "height", message: "is required with the other" },
    ]);
  }
  return {
    width: Number(width),
    height: Number(height),
    method: (method ?? DEFAULT_THUMBNAIL_METHOD) as ThumbnailMethod,
  };
}
