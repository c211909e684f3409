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

/**
 * Where log lines go by default: stdout, written asynchronously. A synchronous write per request
 * line cost a third of the cached read's throughput; this one returns at once, and lines
 * arriving while a write is in flight join the next write. Nothing is held back when idle (no
 * minimum batch), and pino flushes it synchronously when the process exits.
 */
export function logDestination(fd = 1): DestinationStream {
  return pino.destination({ dest: fd, sync: false });
}

export function createLogger(level: string, destination: DestinationStream = logDestination()): Logger {
  return pino(
    {
      level,
      base: { service: "comment-service" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [...CREDENTIAL_FIELDS, ...CREDENTIAL_FIELDS.map((field) => `*.${field}`)],
        censor: "[redacted]",
      },
    },
    destination,
  );
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
