// What uploaded bytes really are (pure): magic numbers (file-type), plain text and markup
// recognized here, image dimensions (image-size). The declared type must match.
import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";
import { DomainError } from "../../core/errors.ts";
import type { DeclaredType } from "./media-types.ts";

/** The label sniffing gives markup and scripts, which no declaration matches. */
export const MARKUP = "text/html";

/**
 * What a sniffed container may be declared as (canonical types). One container can hold
 * several: an MP4 is video/mp4 or audio/mp4 (browsers record voice as either), a WebM
 * video/webm or audio/webm; an Ogg Opus stream is audio/ogg.
 */
const DECLARABLE_AS: Readonly<Record<string, readonly string[]>> = {
  "video/mp4": ["video/mp4", "audio/mp4"],
  "video/x-m4v": ["video/mp4"],
  "audio/mp4": ["audio/mp4"],
  "audio/x-m4a": ["audio/mp4"],
  "video/webm": ["video/webm", "audio/webm"],
  "video/matroska": ["video/x-matroska"],
  "audio/opus": ["audio/ogg"],
  "image/heic": ["image/heic", "image/heif"],
  "image/heif": ["image/heic", "image/heif"],
};

/**
 * The type the bytes are: file-type's answer for binary formats; for the rest, MARKUP when
 * they start like HTML, SVG, XML or a script, text/plain when they are UTF-8 text, else null.
 */
export async function sniff(bytes: Uint8Array): Promise<string | null> {
  const binary = await fileTypeFromBuffer(bytes);
  if (binary) return binary.mime;
  if (looksLikeMarkup(bytes)) return MARKUP;
  return isPlainText(bytes) ? "text/plain" : null;
}

/** A `<tag`, `</tag`, `<!…` or `<?…` (HTML, SVG, XML) or `#!` (a script) at the start, after a BOM and whitespace. */
export function looksLikeMarkup(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 1024))
    .toString("latin1")
    .replace(/^\xef\xbb\xbf/, "")
    .trimStart();
  return /^<[a-z!?/]/i.test(head) || head.startsWith("#!");
}

/** Valid UTF-8 without control characters other than tab, line feed, form feed and carriage return. */
export function isPlainText(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  return !/[\x00-\x08\x0b\x0e-\x1f\x7f]/.test(text);
}

export interface InspectedUpload {
  /** Width and height of an image (as displayed: EXIF rotations swap them); null otherwise or when unreadable. */
  width: number | null;
  height: number | null;
}

/**
 * Checks the bytes are what was declared: 400 media-type-mismatch otherwise (a PNG declared
 * as image/jpeg, HTML declared as an image). Reads an image's dimensions.
 */
export async function inspectUpload(declared: DeclaredType, bytes: Uint8Array): Promise<InspectedUpload> {
  const sniffed = await sniff(bytes);
  const matches = sniffed !== null && (DECLARABLE_AS[sniffed] ?? [sniffed]).includes(declared.mime);
  if (!matches) {
    const what = sniffed === MARKUP ? "markup or a script" : sniffed === null ? "of no recognized type" : sniffed;
    throw new DomainError("media-type-mismatch", 400, `The body is ${what}, not ${declared.mime} as declared in mime.`);
  }
  return declared.kind === "image" ? dimensions(bytes) : { width: null, height: null };
}

function dimensions(bytes: Uint8Array): InspectedUpload {
  try {
    const size = imageSize(bytes);
    const rotated = (size.orientation ?? 1) >= 5;
    return rotated ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
  } catch {
    return { width: null, height: null };
  }
}
