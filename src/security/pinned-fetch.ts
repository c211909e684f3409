// Outbound fetches to hosts named by others (an origin being verified, another homeserver, a
// webhook receiver): the host is resolved once, every address is checked against the address
// policy (address-policy.ts), and the connection goes to exactly the address checked, so a
// resolver that answers differently the second time cannot steer it; time and size are capped.
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { HostResolver, ResolvedAddress } from "./resolver.ts";

/** A GET's bounds: connecting, the whole exchange, the body, and redirects within the origin. */
export const PINNED_GET_LIMITS = { connectMs: 3000, totalMs: 5000, maxBytes: 16 * 1024, maxRedirects: 3 };

export interface PinnedFetchOptions {
  resolver: HostResolver;
  /** Why an address may not be connected to, or null when it may (refusedAddress, or none for trusted hosts). */
  refuse: (address: string) => string | null;
}

/** Why a fetch was refused or its answer not accepted, phrased for whoever named the host (a site owner). */
export class Refusal extends Error {}

/** A GET's answer as pinnedGet read it (the URL it ended at, after redirects). */
export interface PinnedAnswer {
  url: URL;
  statusCode: number;
  contentType: string;
  body: Buffer;
}

/**
 * GET `start` under the address policy: its host resolved once and every address checked, the
 * connection made to the checked address only, redirects followed within its origin only, the
 * whole exchange within PINNED_GET_LIMITS (time, size). Throws a Refusal (its message says why)
 * for anything the policy or the limits refuse; answers any status.
 */
export async function pinnedGet(start: URL, options: PinnedFetchOptions): Promise<PinnedAnswer> {
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Refusal(`no complete answer within ${PINNED_GET_LIMITS.totalMs / 1000} s`)),
    PINNED_GET_LIMITS.totalMs,
  );
  try {
    let url = start;
    const pinned = await abortable(pin(url.hostname, options), deadline.signal);
    for (let redirects = 0; ; redirects++) {
      const response = await get(url, pinned, deadline.signal);
      const { statusCode = 0, headers } = response;
      if (statusCode >= 300 && statusCode < 400 && headers.location !== undefined) {
        response.destroy();
        if (redirects === PINNED_GET_LIMITS.maxRedirects)
          throw new Refusal(`more than ${PINNED_GET_LIMITS.maxRedirects} redirects`);
        const next = URL.parse(headers.location, url);
        // The pinned address is only the origin's: a redirect elsewhere is refused, not re-resolved.
        if (next?.origin !== start.origin)
          throw new Refusal(
            `redirects to ${next?.origin ?? JSON.stringify(headers.location)}, off the origin ${start.origin}`,
          );
        url = next;
        continue;
      }
      return { url, statusCode, contentType: headers["content-type"] ?? "", body: await readCapped(response) };
    }
  } catch (err) {
    throw deadline.signal.aborted ? deadline.signal.reason : err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The one address a fetch will connect to, after the policy accepted every address of the host;
 * throws a Refusal (its message phrased for the site owner) otherwise.
 */
export async function pin(
  hostname: string,
  options: Pick<PinnedFetchOptions, "resolver" | "refuse">,
): Promise<ResolvedAddress> {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(host);
  let addresses: ResolvedAddress[];
  if (family !== 0) addresses = [{ address: host, family: family as 4 | 6 }];
  else {
    try {
      addresses = await options.resolver.addresses(host);
    } catch (err) {
      throw new Refusal(`${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  for (const { address } of addresses) {
    const why = options.refuse(address);
    if (why)
      throw new Refusal(
        address === host
          ? `${host} is not a public address (${why})`
          : `${host} resolves to ${address}, not a public address (${why})`,
      );
  }
  return addresses[0]!;
}

const get = (url: URL, pinned: ResolvedAddress, signal: AbortSignal): Promise<IncomingMessage> =>
  pinnedRequest(url, pinned, signal, {
    method: "GET",
    headers: { accept: "application/json", "user-agent": "comment-service" },
    connectMs: PINNED_GET_LIMITS.connectMs,
  });

/**
 * One HTTP request to exactly the `pinned` address (whatever the host name resolves to now), given
 * `connectMs` to connect; resolves the response once its head arrives.
 */
export function pinnedRequest(
  url: URL,
  pinned: ResolvedAddress,
  signal: AbortSignal,
  options: { method: string; headers: Record<string, string>; body?: Buffer; connectMs: number },
): Promise<IncomingMessage> {
  // Node asks for all addresses when it may race IPv4 against IPv6; either way it gets only this one.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) =>
    lookupOptions.all ? callback(null, [pinned]) : callback(null, pinned.address, pinned.family);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? https : http).request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port || undefined,
      path: url.pathname + url.search,
      method: options.method,
      headers: options.headers,
      lookup,
      agent: false,
      signal,
    });
    const connectTimer = setTimeout(
      () => request.destroy(new Refusal(`no connection to ${pinned.address} within ${options.connectMs / 1000} s`)),
      options.connectMs,
    );
    request.once("socket", (socket) => socket.once("connect", () => clearTimeout(connectTimer)));
    request.once("close", () => clearTimeout(connectTimer));
    request.once("response", resolve);
    request.on("error", reject);
    request.end(options.body);
  });
}

/** The body, refused once it passes the size cap (announced or streamed). */
async function readCapped(response: IncomingMessage): Promise<Buffer> {
  const tooLarge = () => new Refusal(`the document is larger than ${PINNED_GET_LIMITS.maxBytes} bytes`);
  if (Number(response.headers["content-length"]) > PINNED_GET_LIMITS.maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > PINNED_GET_LIMITS.maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** `work`, or the signal's reason as soon as it aborts (a system DNS lookup cannot be cancelled). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}
