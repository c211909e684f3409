// The bytes of an import file, gunzipped when they are gzip (by their magic number), and their
// text decoded strictly: a byte sequence that is not the declared encoding is an error naming
// its line, never a replacement character sent on.
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { ImportFileError } from "./records.ts";

/** Yields the input's bytes, gunzipped when it starts with the gzip magic number. */
export async function* plainBytes(input: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const chunks = input[Symbol.asyncIterator]();
  const first = await chunks.next();
  if (first.done) return;
  async function* all() {
    yield first.value;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  if (first.value[0] !== 0x1f || first.value[1] !== 0x8b) return yield* all();
  try {
    for await (const chunk of Readable.from(all()).pipe(createGunzip())) yield chunk as Buffer;
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(0, `the gzip stream is damaged (${(err as Error).message})`);
  }
}

/** Counts the lines of the text passed through it (1-based: the line the next character is on). */
export class LineCount {
  line = 1;
  add(text: string): void {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.line++;
  }
}

/**
 * A strict decoder: text chunks from byte chunks. An invalid sequence throws an ImportFileError
 * naming the line it is on (counted in `lines`, which the caller may share).
 */
export class StrictDecoder {
  private readonly decoder: TextDecoder;

  constructor(
    private readonly encoding: string,
    private readonly lines: LineCount,
  ) {
    try {
      this.decoder = new TextDecoder(encoding, { fatal: true });
    } catch {
      throw new ImportFileError(1, `the encoding ${JSON.stringify(encoding)} is not supported`);
    }
  }

  decode(bytes: Buffer | null): string {
    let text: string;
    try {
      text = bytes === null ? this.decoder.decode() : this.decoder.decode(bytes, { stream: true });
    } catch {
      // Where the bad bytes are: the text a lenient decoder makes of the chunk, up to its first
      // replacement character.
      const lenient = new TextDecoder(this.encoding).decode(bytes ?? Buffer.alloc(0));
      const valid = lenient.slice(0, Math.max(0, lenient.indexOf("\uFFFD")));
      this.lines.add(valid);
      throw new ImportFileError(
        this.lines.line,
        bytes === null
          ? `the file ends inside a ${this.encoding} character`
          : `bytes that are not ${this.encoding} (is the file in another encoding?)`,
      );
    }
    this.lines.add(text);
    return text;
  }
}

/**
 * The lines of a byte stream, each decoded as UTF-8, with its number; a line longer than
 * `maxLineBytes` is an error (so one line never needs more memory than that).
 */
export async function* textLines(
  input: AsyncIterable<Buffer>,
  maxLineBytes: number,
): AsyncGenerator<{ line: number; text: string }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  const decode = (parts: Buffer[]) => {
    const lines = new LineCount();
    lines.line = line;
    const decoder = new StrictDecoder("utf-8", lines);
    return decoder.decode(Buffer.concat(parts)) + decoder.decode(null);
  };
  for await (const chunk of input) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      line++;
      if (pendingBytes + end - start > maxLineBytes) throw tooLong(line, maxLineBytes);
      pending.push(chunk.subarray(start, end));
      yield { line, text: decode(pending) };
      pending = [];
      pendingBytes = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw tooLong(line + 1, maxLineBytes);
    }
  }
  if (pendingBytes > 0) yield { line: line + 1, text: decode(pending) };
}

const tooLong = (line: number, max: number) =>
  new ImportFileError(line, `the line is longer than ${max} bytes (the cap of one record)`);
