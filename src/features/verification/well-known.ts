// The well-known proof: {origin}/.well-known/service.json names the site's token. The origin
// is hostile until proved otherwise, so the fetch resolves its host once, checks every address
// against the address policy and connects to exactly the address it checked (a resolver that
// answers differently the second time cannot steer the connection); redirects may not leave
// the origin, and time, size and content type are capped.
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { ResolvedAddress, VerificationResolver } from "./resolver.ts";
import type { Check, Proof } from "./proof.ts";

export const WELL_KNOWN_PATH = "/.well-known/service.json";

export const WELL_KNOWN_LIMITS = { connectMs: 3000, totalMs: 5000, maxBytes: 16 * 1024, maxRedirects: 3 };

export interface WellKnownOptions {
  resolver: VerificationResolver;
  /** Why an address may not be connected to, or null when it may (see address-policy.ts). */
  refuse: (address: string) => string | null;
}

/** What to publish for this method, as the start of a verification hands it out. */
export function wellKnownInstructions(origin: string, proof: Proof) {
  return {
    url: `${origin}${WELL_KNOWN_PATH}`,
    content_type: "application/json",
    documents: [{ site_id: proof.siteId, token: proof.token }, { sites: { [proof.siteId]: proof.token } }],
    description:
      `Serve either JSON document at url with status 200 and Content-Type application/json (the second form can list several sites). ` +
      `At most ${WELL_KNOWN_LIMITS.maxBytes / 1024} KiB, answered within ${WELL_KNOWN_LIMITS.totalMs / 1000} s; ` +
      `up to ${WELL_KNOWN_LIMITS.maxRedirects} redirects within the same origin are followed. ` +
      `The host must resolve only to public addresses.`,
  };
}

export async function checkWellKnown(origin: string, proof: Proof, options: WellKnownOptions): Promise<Check> {
  let document: unknown;
  try {
    document = await fetchDocument(origin, options);
  } catch (err) {
    return { ok: false, reason: err instanceof Refusal ? err.message : `request failed: ${(err as Error).message}` };
  }
  return documentProves(document, proof);
}

/** Both accepted shapes: {site_id, token} and {sites: {<site_id>: <token>}}. */
export function documentProves(document: unknown, proof: Proof): Check {
  if (!isObject(document)) return { ok: false, reason: `${WELL_KNOWN_PATH} is not a JSON object` };
  let published: unknown;
  if (document.site_id === proof.siteId) published = document.token;
  else if (isObject(document.sites) && Object.hasOwn(document.sites, proof.siteId))
    published = document.sites[proof.siteId];
  else return { ok: false, reason: `${WELL_KNOWN_PATH} names no token for site ${proof.siteId}` };
  return published === proof.token
    ? { ok: true }
    : { ok: false, reason: `${WELL_KNOWN_PATH} holds a different token for site ${proof.siteId}` };
}

/** A reason the origin's (or a receiver's) answer was not accepted, phrased for the site owner. */
export class Refusal extends Error {}

async function fetchDocument(origin: string, options: WellKnownOptions): Promise<unknown> {
  const { url, statusCode, contentType, body } = await pinnedGet(new URL(WELL_KNOWN_PATH, origin), options);
  if (statusCode !== 200) throw new Refusal(`${url.pathname} answered HTTP ${statusCode}`);
  if (!/^application\/json\s*(;|$)/i.test(contentType))
    throw new Refusal(`${url.pathname} is served as ${JSON.stringify(contentType)}, not application/json`);
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new Refusal(`${url.pathname} is not valid JSON`);
  }
}

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
 * whole exchange within WELL_KNOWN_LIMITS (time, size). Throws a Refusal (its message says why)
 * for anything the policy or the limits refuse; answers any status.
 */
export async function pinnedGet(start: URL, options: WellKnownOptions): Promise<PinnedAnswer> {
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Refusal(`no complete answer within ${WELL_KNOWN_LIMITS.totalMs / 1000} s`)),
    WELL_KNOWN_LIMITS.totalMs,
  );
  try {
    let url = start;
    const pinned = await abortable(pin(url.hostname, options), deadline.signal);
    for (let redirects = 0; ; redirects++) {
      const response = await get(url, pinned, deadline.signal);
      const { statusCode = 0, headers } = response;
      if (statusCode >= 300 && statusCode < 400 && headers.location !== undefined) {
        response.destroy();
        if (redirects === WELL_KNOWN_LIMITS.maxRedirects)
          throw new Refusal(`more than ${WELL_KNOWN_LIMITS.maxRedirects} redirects`);
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
 * throws a Refusal (its message phrased for the site owner) otherwise. Webhook deliveries use it too.
 */
export async function pin(
  hostname: string,
  options: Pick<WellKnownOptions, "resolver" | "refuse">,
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
    headers: { accept: "application/json", "user-agent": "comment-service origin verification" },
    connectMs: WELL_KNOWN_LIMITS.connectMs,
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
  const tooLarge = () => new Refusal(`the document is larger than ${WELL_KNOWN_LIMITS.maxBytes} bytes`);
  if (Number(response.headers["content-length"]) > WELL_KNOWN_LIMITS.maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > WELL_KNOWN_LIMITS.maxBytes) {
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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
