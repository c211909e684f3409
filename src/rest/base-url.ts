// The base URL a request reached the service under: the configured public base URL, else the
// request's Host (and, from a trusted proxy only, X-Forwarded-Proto / X-Forwarded-Host). Absolute
// URLs in responses are built on it, so cached response bodies are keyed by it.
import type { TrustedProxies } from "../security/client-ip.ts";

/** The value the nearest proxy set: the last of a comma-separated list. */
const nearest = (value: string | undefined): string | undefined => value?.split(",").at(-1)?.trim() || undefined;

export function requestBaseUrl(
  publicBaseUrl: string | null,
  proxies: TrustedProxies,
  peer: string | undefined,
  headers: Record<string, string | undefined>,
): string {
  if (publicBaseUrl) return publicBaseUrl;
  const trusted = peer !== undefined && proxies.has(peer);
  const proto = (trusted && nearest(headers["x-forwarded-proto"])) || "http";
  const host = (trusted && nearest(headers["x-forwarded-host"])) || headers.host || "";
  return `${proto.toLowerCase()}://${host.toLowerCase()}`;
}
