// Verifying a Matrix OpenID token the way widgets identify users: the homeserver that issued
// it answers GET /_matrix/federation/v1/openid/userinfo with the user it names. Only
// homeservers the configuration allows are asked, at the base URL it gives; every other
// homeserver than the service's own is reached under the outbound address policy
// (its host resolved once, checked, and connected to exactly), so a sign-in cannot be used to
// reach the service's own network.
import { DomainError, forbidden } from "../../core/errors.ts";
import { isValidUserId } from "../../core/identifiers.ts";
import { pinnedGet, Refusal, type PinnedFetchOptions } from "../../security/pinned-fetch.ts";

export interface AllowedHomeserver {
  baseUrl: string;
  /** The service's own homeserver (configured, trusted): not under the address policy. */
  own: boolean;
}

/**
 * dashboard.openid_homeservers: "name" or "name=https://base-url" entries; empty: the own
 * homeserver only. Throws naming the key for a malformed entry.
 */
export function allowedHomeservers(
  entries: readonly string[],
  own: { serverName: string; baseUrl: string },
): Map<string, AllowedHomeserver> {
  const allowed = new Map<string, AllowedHomeserver>();
  for (const entry of entries.length > 0 ? entries : [own.serverName]) {
    const [name = "", url] = entry.split(/=(.*)/s, 2).map((part) => part.trim());
    const isOwn = name === own.serverName;
    const baseUrl = url ?? (isOwn ? own.baseUrl : `https://${name}`);
    if (!SERVER_NAME.test(name) || !URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
      throw new Error(
        `configuration key "dashboard.openid_homeservers": ${JSON.stringify(entry)} is not "server_name" or "server_name=https://base-url"`,
      );
    allowed.set(name, { baseUrl: baseUrl.replace(/\/+$/, ""), own: isOwn });
  }
  return allowed;
}

/** A Matrix server name: a host name or IP literal with an optional port. */
export const SERVER_NAME = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,255})(:\d{1,5})?$/;

export const homeserverNotAllowed = (serverName: string) =>
  forbidden("homeserver-not-allowed", `Sign-in with accounts of ${serverName} is not allowed here.`);

const tokenRefused = () =>
  new DomainError(
    "openid-token-invalid",
    403,
    "The homeserver does not vouch for this OpenID token (forged or expired).",
  );

const homeserverUnavailable = (serverName: string, why: string) =>
  new DomainError(
    "openid-homeserver-unreachable",
    502,
    `The homeserver ${serverName} could not verify the token: ${why}.`,
  );

export class OpenIdVerifier {
  constructor(
    private readonly homeservers: ReadonlyMap<string, AllowedHomeserver>,
    /** The address policy for other homeservers; the own one is reached with `refuse` off. */
    private readonly fetchOptions: PinnedFetchOptions,
  ) {}

  /** The Matrix user id the homeserver vouches for with this token; 403 or 502 problems otherwise. */
  async userOf(serverName: string, accessToken: string): Promise<string> {
    const homeserver = this.homeservers.get(serverName);
    if (!homeserver) throw homeserverNotAllowed(serverName);
    const url = new URL(
      `${homeserver.baseUrl}/_matrix/federation/v1/openid/userinfo?access_token=${encodeURIComponent(accessToken)}`,
    );
    let answer: Awaited<ReturnType<typeof pinnedGet>>;
    try {
      answer = await pinnedGet(url, homeserver.own ? { ...this.fetchOptions, refuse: () => null } : this.fetchOptions);
    } catch (err) {
      throw homeserverUnavailable(serverName, err instanceof Refusal ? err.message : (err as Error).message);
    }
    // Synapse answers 401 M_UNKNOWN_TOKEN for a token it never issued or that expired.
    if (answer.statusCode === 401 || answer.statusCode === 403 || answer.statusCode === 404) throw tokenRefused();
    if (answer.statusCode !== 200) throw homeserverUnavailable(serverName, `it answered HTTP ${answer.statusCode}`);
    const sub = subOf(answer.body);
    // A homeserver vouches only for its own users (the OpenID flow's rule: compare the domain).
    if (sub === null || !isValidUserId(sub) || sub.slice(sub.indexOf(":") + 1) !== serverName)
      throw homeserverUnavailable(serverName, "its answer names no user of its own");
    return sub;
  }
}

function subOf(body: Buffer): string | null {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown;
    const sub = typeof parsed === "object" && parsed !== null ? (parsed as { sub?: unknown }).sub : undefined;
    return typeof sub === "string" ? sub : null;
  } catch {
    return null;
  }
}
