// The well-known proof: {origin}/.well-known/service.json names the site's token. The origin
// is hostile until proved otherwise, so the fetch resolves its host once, checks every address
// against the address policy and connects to exactly the address it checked (a resolver that
// answers differently the second time cannot steer the connection); redirects may not leave
// the origin, and time, size and content type are capped.
import { PINNED_GET_LIMITS, pinnedGet, Refusal, type PinnedFetchOptions } from "../../security/pinned-fetch.ts";
import type { Check, Proof } from "./proof.ts";

export const WELL_KNOWN_PATH = "/.well-known/service.json";

export const WELL_KNOWN_LIMITS = PINNED_GET_LIMITS;

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

export async function checkWellKnown(origin: string, proof: Proof, options: PinnedFetchOptions): Promise<Check> {
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

async function fetchDocument(origin: string, options: PinnedFetchOptions): Promise<unknown> {
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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
