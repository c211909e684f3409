// The one place the service's logger is built: pino, JSON lines on stdout (or a given
// destination), at log.level. Request lines carry method, route id, status, latency and the
// request id; nothing logged carries a credential: request lines hold the path without its
// query (signed media URLs carry signatures there) and no headers or bodies, and any field
// named like a credential is censored should one ever be passed.
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

const CREDENTIAL_FIELDS = ["token", "claim_token", "claimToken", "secret", "signature", "authorization", "hmac", "verify_token", "verifyToken", "password"];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "comment-service" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...CREDENTIAL_FIELDS, ...CREDENTIAL_FIELDS.map((field) => `*.${field}`)], censor: "[redacted]" },
    },
    destination,
  );
}
