// The media types visitors may upload (pure): the allow-list per kind, the names a client may
// declare for each (aliases browsers and tools use), and the size cap per kind.
import { validationError } from "../../core/errors.ts";

/** A comment's media kind besides stickers; decides the Matrix msgtype and the size cap. */
export type MediaKind = "image" | "video" | "audio" | "file";

/**
 * The allow-list: canonical MIME type → kind. Everything else is refused with 400
 * validation-error (field mime) before the body is read. Markup (HTML, SVG, XML) and scripts are
 * never accepted: a browser could run them.
 */
export const ALLOWED_MEDIA_TYPES: Readonly<Record<string, MediaKind>> = {
  "image/png": "image",
  "image/jpeg": "image",
  "image/gif": "image",
  "image/webp": "image",
  "image/avif": "image",
  "image/heic": "image",
  "image/heif": "image",
  "video/mp4": "video",
  "video/quicktime": "video",
  "video/webm": "video",
  "video/x-matroska": "video",
  "audio/mpeg": "audio",
  "audio/mp4": "audio",
  "audio/ogg": "audio",
  "audio/webm": "audio",
  "audio/wav": "audio",
  "audio/flac": "audio",
  "application/pdf": "file",
  "text/plain": "file",
};

/** Other names clients declare for an allowed type. */
const ALIASES: Readonly<Record<string, string>> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "audio/mp3": "audio/mpeg",
  "audio/x-m4a": "audio/mp4",
  "audio/m4a": "audio/mp4",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-flac": "audio/flac",
  "audio/opus": "audio/ogg",
  "video/matroska": "video/x-matroska",
};

export interface DeclaredType {
  /** The canonical MIME type (what the upload is stored and sent as). */
  mime: string;
  kind: MediaKind;
}

/**
 * The declared `mime` as an allowed canonical type: case-insensitive, parameters ignored
 * (`audio/webm;codecs=opus` is audio/webm); 400 validation-error outside the allow-list.
 */
export function declaredType(declared: string): DeclaredType {
  const bare = declared.split(";")[0]!.trim().toLowerCase();
  const mime = ALIASES[bare] ?? bare;
  const kind = ALLOWED_MEDIA_TYPES[mime];
  if (!kind) {
    const accepted = `accepted: ${Object.keys(ALLOWED_MEDIA_TYPES).join(", ")}`;
    throw validationError(`${JSON.stringify(declared)} is not an accepted upload type; ${accepted}.`, [
      { field: "mime", message: accepted },
    ]);
  }
  return { mime, kind };
}

/** The size caps per kind (configuration keys media.max_<kind>_bytes). */
export interface MediaCaps {
  maxImageBytes: number;
  maxVideoBytes: number;
  maxAudioBytes: number;
  maxFileBytes: number;
}

export function maxBytesFor(kind: MediaKind, caps: MediaCaps): number {
  switch (kind) {
    case "image":
      return caps.maxImageBytes;
    case "video":
      return caps.maxVideoBytes;
    case "audio":
      return caps.maxAudioBytes;
    case "file":
      return caps.maxFileBytes;
  }
}
