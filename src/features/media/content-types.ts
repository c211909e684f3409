// What the media proxy serves bytes as (pure): the canonical MIME type of what the homeserver
// says, whether a browser may show it inline, and the filename it is saved under.

/** Common raster images and common audio/video: shown inline. */
const INLINE: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "audio/mpeg",
  "audio/ogg",
  "audio/wav",
  "audio/webm",
  "audio/mp4",
  "audio/aac",
  "audio/flac",
  "video/mp4",
  "video/webm",
  "video/ogg",
]);

/**
 * Served with their own type but only as attachments: SVG (scriptable), PDF (a viewer with its
 * own scripting), uncommon image/audio/video types, and the file types visitors may upload.
 */
const ATTACHMENT: ReadonlySet<string> = new Set([
  "image/svg+xml",
  "image/bmp",
  "image/tiff",
  "image/heic",
  "image/heif",
  "image/x-icon",
  "video/quicktime",
  "video/x-matroska",
  "audio/x-matroska",
  "application/pdf",
  "application/zip",
  "text/plain",
  "application/octet-stream",
]);

/** Other spellings homeservers and clients use for the same types. */
const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/x-png": "image/png",
  "image/svg": "image/svg+xml",
  "image/x-ms-bmp": "image/bmp",
  "image/vnd.microsoft.icon": "image/x-icon",
  "audio/mp3": "audio/mpeg",
  "audio/x-mp3": "audio/mpeg",
  "audio/mpeg3": "audio/mpeg",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-m4a": "audio/mp4",
  "audio/m4a": "audio/mp4",
  "audio/x-aac": "audio/aac",
  "audio/x-flac": "audio/flac",
  "audio/opus": "audio/ogg",
  "application/x-pdf": "application/pdf",
  "application/x-zip-compressed": "application/zip",
};

/** Every Content-Type the proxy answers 200 with. */
export const SERVED_MEDIA_TYPES: readonly string[] = [...INLINE, ...ATTACHMENT];

const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/svg+xml": "svg",
  "image/x-icon": "ico",
  "audio/mpeg": "mp3",
  "audio/mp4": "m4a",
  "audio/x-matroska": "mka",
  "video/quicktime": "mov",
  "video/x-matroska": "mkv",
  "text/plain": "txt",
  "application/octet-stream": "bin",
};

export interface ServedType {
  /** The canonical MIME type, without parameters. */
  contentType: string;
  inline: boolean;
  /** Server-generated (never from the media id or the uploader): e.g. image.png, file.bin. */
  filename: string;
}

/**
 * How bytes the homeserver labels `declared` are served: a type outside the allow-lists (HTML,
 * scripts, anything unknown or malformed) as application/octet-stream, never with its own type.
 */
export function servedType(declared: string | null): ServedType {
  const bare = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  const canonical = ALIASES[bare] ?? bare;
  const contentType = INLINE.has(canonical) || ATTACHMENT.has(canonical) ? canonical : "application/octet-stream";
  const top = contentType.split("/")[0]!;
  const stem = top === "image" || top === "audio" || top === "video" ? top : "file";
  const extension = EXTENSIONS[contentType] ?? contentType.split("/")[1]!.replace(/^x-/, "");
  return { contentType, inline: INLINE.has(contentType), filename: `${stem}.${extension}` };
}

/** The Content-Disposition header of a served type. */
export const contentDisposition = (type: ServedType): string =>
  `${type.inline ? "inline" : "attachment"}; filename="${type.filename}"`;
