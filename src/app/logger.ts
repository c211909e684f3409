// The one place the service's logger is built: pino, JSON lines on stdout (or a given
// destination), at log.level, written asynchronously. Request lines carry method, route id, status, latency and the
// request id; nothing logged carries a credential: request lines hold the path without its
// query (signed media URLs carry signatures there) and no headers or bodies, and any field
// named like a credential is censored should one ever be passed.
import { LogService } from "matrix-bot-sdk";
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

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

/** Log output is written in blocks of at least this many bytes (about 150 request lines)... */
const LOG_BLOCK_BYTES = 32 * 1024;
/** ...or this often when fewer lines than a block have come. */
const LOG_FLUSH_MS = 250;

/**
 * Where log lines go by default: stdout, written asynchronously in blocks (pino's sonic-boom:
 * `minLength`, `periodicFlush`). A synchronous write per request line cost a third of the cached
 * read's throughput, an asynchronous write per line (one thread-pool round trip each) still about
 * a tenth, and 4 KB blocks still 3.5% of the busy samples of a CPU profile of the reads bench
 * (1.2% in 32 KB blocks). A line waits at most LOG_FLUSH_MS when traffic is light;
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
  // pino writes each line as a string; the buffer mode holds Buffers.
  const writeBytes = destination.write.bind(destination) as unknown as (bytes: Buffer) => boolean;
  destination.write = (line: string) => writeBytes(Buffer.from(line));
  return destination;
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
    stampPrefix = `,"time":"${new Date(second * 1000).toISOString().slice(0, 20)}`;
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

/** What a request line holds besides the logger's own fields (level, time, service, msg). */
export interface RequestLine {
  requestId: string;
  method: string;
  /** The route table's id, or the kind of a request it did not answer (http-server.ts). */
  route: string;
  /** The path without its query. */
  path: string;
  /** The status sent (0: none was). */
  status: number;
  latencyMs: number;
}

/**
 * Writes one request line at `info` per call, as `logger.info({ ...fields }, "request")` writes it
 * (same fields, order and escaping: test/unit/logger.test.ts compares them), but made by one
 * template instead of pino's generic walk of an object: a line is written for every request, and
 * the walk took about half of its cost (2.5 of 4-6 µs a line). The fields hold nothing a
 * credential could be in, so no redaction applies.
 */
export function requestLineWriter(logger: Logger): (line: RequestLine) => void {
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as DestinationStream;
  const time = internals[pino.symbols.timeSym] as () => string;
  const prefix = `{"level":${logger.levels.values.info}`;
  const bindings = internals[pino.symbols.chindingsSym] as string;
  const number = (value: number) => (Number.isFinite(value) ? String(value) : "null");
  return (line) => {
    if (!logger.isLevelEnabled("info")) return;
    stream.write(
      `${prefix}${time()}${bindings},"requestId":${JSON.stringify(line.requestId)},"method":${JSON.stringify(line.method)},"route":${JSON.stringify(line.route)},"path":${JSON.stringify(line.path)},"status":${number(line.status)},"latencyMs":${number(line.latencyMs)},"msg":"request"}\n`,
    );
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
