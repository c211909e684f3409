// The one place the service's logger is built: pino, JSON lines on stdout (or a given
// destination), at log.level, written asynchronously. Request lines carry method, route id, status, latency and the
// request id; nothing logged carries a credential: request lines hold the path without its
// query (signed media URLs carry signatures there) and no headers or bodies, and any field
// named like a credential is censored should one ever be passed.
import { LogService } from "matrix-bot-sdk";
import { pino, type DestinationStream, type Logger } from "pino";
import { ByteRing } from "./byte-ring.ts";
import { isoSecond, type RequestLine, RequestLineEncoder, requestLineBound } from "./request-line.ts";

export type { Logger } from "pino";
export { PLAIN_REQUEST_ID, type RequestLine, requestPath } from "./request-line.ts";

const CREDENTIAL_FIELDS = [
  "token",
  "claim_token",
  "claimToken",
  "secret",
  "signature",
  "authorization",
  "hmac",
  "verify_token",
  "verifyToken",
  "password",
];

/** Log output is written in blocks of at least this many bytes (about 1,000 request lines)... */
const LOG_BLOCK_BYTES = 256 * 1024;
/** ...or this often when fewer lines than a block have come. */
const LOG_FLUSH_MS = 250;
/** The bytes of lines not yet written are kept in a ring this large (16 blocks). */
const LOG_RING_BYTES = 4 * 1024 * 1024;

/**
 * Where log lines go by default: stdout, written asynchronously in blocks (pino's sonic-boom:
 * `minLength`, `periodicFlush`). A synchronous write per request line cost a third of the cached
 * read's throughput, an asynchronous write per line (one thread-pool round trip each) still about
 * a tenth, and 4 KB blocks still 3.5% of the busy samples of a CPU profile of the reads bench
 * (1.2% in 32 KB blocks; in a profile of the log's figure the writes still took 0.8% of the
 * default level's samples in 32 KB blocks, 0.3% in 256 KB). A line waits at most LOG_FLUSH_MS when traffic is light;
 * pino writes what is held synchronously when the process exits (a SIGKILL loses at most one
 * block, or the last LOG_FLUSH_MS of lines).
 *
 * The block is kept as the lines' bytes (sonic-boom's "buffer" mode), not as one growing string:
 * in its text mode sonic-boom measures the held string's UTF-8 length on every write, which
 * flattens and walks up to a block per line (8.5 µs a request line with 32 KB blocks, against
 * 2.5 µs so, of which 1.3 µs is pino making the line).
 */
export function logDestination(fd = 1): ReturnType<typeof pino.destination> {
  const destination = pino.destination({
    dest: fd,
    sync: false,
    minLength: LOG_BLOCK_BYTES,
    maxWrite: 2 * LOG_BLOCK_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    contentMode: "buffer",
  });
  // pino writes each line as a string; the buffer mode holds Buffers: slices of one ring, whose
  // room comes free as sonic-boom reports its writes done.
  const ring = new ByteRing(LOG_RING_BYTES);
  destination.on("write", (n: number) => ring.written(n));
  const writeBytes = destination.write.bind(destination) as unknown as (bytes: Buffer) => boolean;
  destination.write = (line: string) => writeBytes(ring.bytes(line));
  (destination as BytesDestination)[WRITE_MADE] = (size, fill) => writeBytes(ring.encode(size, fill));
  return destination;
}

/** A destination's way to take bytes made in place (request lines), besides pino's strings. */
const WRITE_MADE = Symbol("write bytes made in place");
interface BytesDestination {
  /** Writes the bytes `fill` makes, at most `size` of them (ByteRing.encode). */
  [WRITE_MADE]?: (size: number, fill: (target: Buffer, start: number) => number) => boolean;
}

let stampSecond = Number.NaN;
let stampPrefix = "";

/**
 * pino's `time` field as an ISO 8601 string, as pino.stdTimeFunctions.isoTime writes it, built
 * from a prefix kept per second: formatting a Date on every request line was a visible part of
 * the line's cost.
 */
export function isoTimestamp(now = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stampPrefix = `,"time":"${isoSecond(second)}`;
  }
  const ms = now - second * 1000;
  return `${stampPrefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z"`;
}

export function createLogger(level: string, destination: DestinationStream = logDestination()): Logger {
  return pino(
    {
      level,
      base: { service: "comment-service" },
      timestamp: () => isoTimestamp(),
      redact: {
        paths: [...CREDENTIAL_FIELDS, ...CREDENTIAL_FIELDS.map((field) => `*.${field}`)],
        censor: "[redacted]",
      },
    },
    destination,
  );
}

/** Request lines are held at most this long after their request ended... */
export const REQUEST_LINES_WAIT_MS = 50;
/** ...or until this many are held (about 256 KB of lines, a block). */
export const REQUEST_LINES_HELD = 1024;

/**
 * Writes one request line at `info` per call, as `logger.info({ ...fields }, "request")` writes it
 * for a logger made by createLogger (request-line.ts makes its bytes), but not on the request's
 * path: a call holds the fields and the time, and the lines held are made one after another
 * REQUEST_LINES_WAIT_MS later (or once REQUEST_LINES_HELD are held), then handed to the
 * destination as one write: into logDestination's ring in place, to any other as text. Made on
 * the request's path, between requests that run through much other code, a line cost several
 * times what the same code costs in a loop (3.6 µs of CPU a request, 0.6 µs in a loop); made once
 * a turn of the event loop, each turn paid for a timer of its own and a short write; in batches
 * of 20 ms (about a hundred lines), the timer made and cleared per batch and the write per batch
 * were still a visible share of a profile. Any other
 * line written to the logger first writes the held ones, so lines keep their order, and so does
 * the destination's synchronous flush at exit. The fields hold nothing a credential could be in,
 * so no redaction applies.
 */
export function requestLineWriter(logger: Logger): (line: RequestLine) => void {
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as DestinationStream & BytesDestination & { flushSync?: () => void };
  const encoder = new RequestLineEncoder(
    `{"level":${logger.levels.values.info}`,
    internals[pino.symbols.chindingsSym] as string,
  );
  // Arrays of their own for each batch: young, as the lines put in them are, so that holding a
  // line is a plain store (an old array's store of a young line goes through the GC's barrier).
  let held: RequestLine[] = [];
  let times: number[] = [];
  const write = stream.write.bind(stream);
  const writeMade = stream[WRITE_MADE];
  const writeHeld = () => {
    if (held.length === 0) return;
    const lines = held;
    const ended = times;
    held = [];
    times = [];
    let size = 0;
    for (const line of lines) size += requestLineBound(line);
    const fill = (target: Buffer, start: number) => {
      let end = start;
      for (let i = 0; i < lines.length; i++) end = encoder.encode(lines[i]!, ended[i]!, target, end);
      return end;
    };
    if (writeMade) writeMade(size, fill);
    else {
      const text = Buffer.allocUnsafe(size);
      write(text.toString("utf8", 0, fill(text, 0)));
    }
  };
  stream.write = (text: string) => {
    writeHeld();
    return write(text);
  };
  const flushSync = stream.flushSync?.bind(stream);
  if (flushSync)
    stream.flushSync = () => {
      writeHeld();
      flushSync();
    };
  // One timer, armed again (refresh) for a batch when it is not armed already: a batch written
  // because it is full leaves it armed, and the next batch is written when it fires, sooner.
  let timer: NodeJS.Timeout | undefined;
  let armed = false;
  const fire = () => {
    armed = false;
    writeHeld();
  };
  return (line) => {
    if (!logger.isLevelEnabled("info")) return;
    if (!armed) {
      armed = true;
      if (timer) timer.refresh();
      else timer = setTimeout(fire, REQUEST_LINES_WAIT_MS);
    }
    held.push(line);
    times.push(Date.now());
    if (held.length >= REQUEST_LINES_HELD) writeHeld();
  };
}

/**
 * Sends matrix-bot-sdk's own log lines (errors only: src/matrix/homeserver.ts sets its level) to
 * `logger` as JSON lines instead of the console. The SDK's logger is process-wide, so the most
 * recently started instance's logger takes them.
 */
export function routeMatrixSdkLogs(logger: Logger): void {
  const text = (part: unknown): string => {
    if (part instanceof Error) return part.message;
    if (typeof part === "string") return part;
    try {
      return JSON.stringify(part);
    } catch {
      return String(part);
    }
  };
  const line =
    (level: "trace" | "debug" | "info" | "warn" | "error") =>
    (module: string, ...parts: unknown[]) =>
      logger[level]({ module }, parts.map(text).join(" "));
  LogService.setLogger({
    trace: line("trace"),
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
  });
}
