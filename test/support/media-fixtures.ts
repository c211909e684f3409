// Small, valid-enough media files built in code: the magic numbers and headers the service
// sniffs (and, for images, reads dimensions from), so tests need no binary fixtures.
import { crc32, deflateSync } from "node:zlib";

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real PNG (solid grey), decodable by any viewer; `padding` bytes of ancillary chunk make it larger. */
export function png(width: number, height: number, padding = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const raw = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    ...(padding > 0 ? [pngChunk("tEXt", Buffer.concat([Buffer.from("Comment\0"), Buffer.alloc(padding, 0x61)]))] : []),
    pngChunk("IDAT", deflateSync(raw)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** JPEG headers: SOI, JFIF APP0, a baseline SOF0 with the dimensions, EOI. */
export function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  ]);
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}

export function gif(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  return Buffer.concat([Buffer.from("GIF89a", "latin1"), screen, Buffer.from([0x3b])]);
}

/** An extended WebP (VP8X) header carrying the canvas size. */
export function webp(width: number, height: number): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x.writeUIntLE(width - 1, 4, 3);
  vp8x.writeUIntLE(height - 1, 7, 3);
  const chunk = Buffer.concat([Buffer.from("VP8X", "latin1"), le32(10), vp8x]);
  return Buffer.concat([Buffer.from("RIFF", "latin1"), le32(4 + chunk.length), Buffer.from("WEBP", "latin1"), chunk]);
}

/** A WAV with `samples` bytes of 8 kHz 8-bit mono silence. */
export function wav(samples = 800): Buffer {
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0);
  fmt.writeUInt16LE(1, 2);
  fmt.writeUInt32LE(8000, 4);
  fmt.writeUInt32LE(8000, 8);
  fmt.writeUInt16LE(1, 12);
  fmt.writeUInt16LE(8, 14);
  const data = Buffer.alloc(samples, 0x80);
  const body = Buffer.concat([
    Buffer.from("WAVEfmt ", "latin1"),
    le32(16),
    fmt,
    Buffer.from("data", "latin1"),
    le32(samples),
    data,
  ]);
  return Buffer.concat([Buffer.from("RIFF", "latin1"), le32(body.length), body]);
}

/** An ISO BMFF file: an ftyp box with the brand (isom: video/mp4, "M4A ": audio, "qt  ": QuickTime), and an empty mdat. */
export function isoMedia(brand: string): Buffer {
  const ftyp = Buffer.concat([
    be32(24),
    Buffer.from("ftyp", "latin1"),
    Buffer.from(brand, "latin1"),
    be32(0),
    Buffer.from(brand, "latin1"),
    Buffer.from("mp41", "latin1"),
  ]);
  return Buffer.concat([ftyp, be32(8), Buffer.from("mdat", "latin1")]);
}

export const pdf = (): Buffer =>
  Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n", "latin1");

export const html = (): Buffer => Buffer.from("<!DOCTYPE html><html><body><script>alert(1)</script></body></html>");

export const svg = (): Buffer =>
  Buffer.from(
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
  );

function le32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

function be32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
