// What the domain needs to know about the HTTP request behind an operation (site write auth
// and idempotency are defined over it). Internal callers (dashboards) have no such request.

export interface RequestInfo {
  method: string;
  /** Request target as sent: path plus `?query` when present. */
  target: string;
  /** Lowercased header names. */
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  clientIp: string;
  /** The peer is one of server.trusted_proxies, so its X-Forwarded-* headers are believed. */
  viaTrustedProxy: boolean;
}

/** The request before its body is read: all that admission (routing, rate limits, credentials) needs. */
export type RequestHead = Omit<RequestInfo, "rawBody">;

export interface IdempotencyScope {
  key: string;
  fingerprint: string;
}
