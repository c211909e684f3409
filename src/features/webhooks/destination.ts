// Sending one webhook message: the receiver is a URL the site's owner named, so it is fetched as
// every host named by others is (src/security/pinned-fetch.ts): its host
// is resolved once, every address must pass the address policy (no loopback, private,
// link-local … unless webhooks.allow_private_destinations), and the connection goes to exactly
// the checked address; no redirect is followed; the attempt is bounded in time, and only the
// first bytes of the answer are read.
import { isIP } from "node:net";
import { refusedAddress } from "../../security/address-policy.ts";
import { abortable, pin, pinnedRequest, Refusal } from "../../security/pinned-fetch.ts";
import type { HostResolver } from "../../security/resolver.ts";
import { WEBHOOK_LIMITS } from "../../config/limits.ts";
import { DomainError, validationError } from "../../core/errors.ts";

export interface DestinationOptions {
  resolver: HostResolver;
  allowPrivate: boolean;
  timeoutMs: number;
}

/** What one attempt came to: the receiver's status (null: no answer) and, unless 2xx, why it failed. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  latencyMs: number;
}

/** The address policy of webhook destinations. */
const policy = (allowPrivate: boolean) => (address: string) => (allowPrivate ? null : refusedAddress(address));

/**
 * Refuses, at registration, a URL that can never be delivered to: not http(s), credentials in it,
 * or an IP-literal host the address policy refuses (a name is checked at every attempt).
 */
export function checkDestination(url: string, allowPrivate: boolean): void {
  const parsed = URL.parse(url);
  const invalid = (message: string) => validationError(message, [{ field: "url", message }]);
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    throw invalid("url must be an http(s) URL");
  if (parsed.username || parsed.password) throw invalid("url must not carry credentials");
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  const why = isIP(host) === 0 ? null : policy(allowPrivate)(host);
  if (why) throw new DomainError("private-destination", 400, `url names a non-public address (${why}).`);
}

export async function deliver(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: DestinationOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Refusal(`no answer within ${options.timeoutMs / 1000} s`)),
    options.timeoutMs,
  );
  const result = (status: number | null, error: string | null): AttemptResult => ({
    status,
    error: error === null ? null : error.slice(0, WEBHOOK_LIMITS.maxErrorChars),
    latencyMs: Math.round(performance.now() - started),
  });
  try {
    const target = new URL(url);
    const pinned = await abortable(
      pin(target.hostname, { resolver: options.resolver, refuse: policy(options.allowPrivate) }),
      deadline.signal,
    );
    const bytes = Buffer.from(body, "utf8");
    const response = await pinnedRequest(target, pinned, deadline.signal, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        "content-length": String(bytes.length),
        "user-agent": "comment-service webhooks",
      },
      body: bytes,
      connectMs: WEBHOOK_LIMITS.connectMs,
    });
    const status = response.statusCode ?? 0;
    const answer = await firstBytes(response, WEBHOOK_LIMITS.maxResponseBytes);
    if (status >= 200 && status < 300) return result(status, null);
    return result(status, `HTTP ${status}${answer ? `: ${answer}` : ""}`);
  } catch (err) {
    const reason = deadline.signal.aborted ? deadline.signal.reason : err;
    return result(null, reason instanceof Refusal ? reason.message : `request failed: ${(reason as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Up to `max` bytes of a response as text; the rest is not read (the connection is closed). */
async function firstBytes(response: AsyncIterable<Buffer> & { destroy(): void }, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= max) break;
  }
  response.destroy();
  return Buffer.concat(chunks).subarray(0, max).toString("utf8").trim();
}
