// Dashboard sessions: a Matrix user signs in with an OpenID token their homeserver vouches for
// (openid.ts) and gets a short-lived bearer token; only its SHA-256 is stored, and signing out
// deletes it. An OpenID token opens one session only: the service remembers each token it
// exchanged (in the database, so across instances and restarts) until the token has expired at
// its homeserver. The operator token is no session: it is checked against the configuration.
import { createHash, randomUUID } from "node:crypto";
import { DomainError } from "../../core/errors.ts";
import type { Db } from "../../db/client.ts";
import { randomToken } from "../../security/random-token.ts";
import { secretsEqual } from "../../security/secret-equal.ts";
import { SessionStore } from "./session-store.ts";

/** The cookie a same-origin dashboard keeps its session in. */
export const SESSION_COOKIE = "dashboard_session";
/** Session tokens start with this, so they are told from the operator token and other secrets at a glance. */
const TOKEN_PREFIX = "ds_";
const TOKEN = /^ds_[A-Za-z0-9_-]{43}$/;
/**
 * How long an exchanged OpenID token is remembered. The userinfo answer does not say when the
 * token expires; homeservers issue them for an hour (Synapse, Dendrite, Conduit: expires_in
 * 3600), so a day is well past any token's end.
 */
export const SPENT_OPENID_TOKEN_MEMORY_SECONDS = 86_400;

const tokenSpent = () =>
  new DomainError(
    "openid-token-invalid",
    403,
    "This OpenID token was already exchanged for a session; ask the homeserver for a new one.",
  );

export interface IssuedSession {
  token: string;
  userId: string;
  expiresAt: Date;
}

export interface SessionOptions {
  ttlSeconds: number;
  operatorToken: string | null;
  /** The Matrix user id the homeserver `serverName` vouches for with this OpenID token (openid.ts). */
  verifyOpenId: (serverName: string, accessToken: string) => Promise<string>;
}

/** What is stored of a secret: its SHA-256, hex. */
const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

export class DashboardSessions {
  private readonly store: SessionStore;

  constructor(
    db: Db,
    private readonly options: SessionOptions,
  ) {
    this.store = new SessionStore(db);
  }

  /**
   * Verifies the OpenID token with its homeserver and opens a session for the user it names,
   * once: a token already exchanged is refused (openid-token-invalid). Spent after the
   * homeserver vouched for it, so forged tokens leave nothing behind.
   */
  async signIn(serverName: string, accessToken: string, now = new Date()): Promise<IssuedSession> {
    const userId = await this.options.verifyOpenId(serverName, accessToken);
    await this.store.deleteExpired(now);
    const spentUntil = new Date(now.getTime() + SPENT_OPENID_TOKEN_MEMORY_SECONDS * 1000);
    if (!(await this.store.spendOpenIdToken(sha256(`${serverName}\0${accessToken}`), spentUntil))) throw tokenSpent();
    const token = `${TOKEN_PREFIX}${randomToken()}`;
    const expiresAt = new Date(now.getTime() + this.options.ttlSeconds * 1000);
    await this.store.create(randomUUID(), sha256(token), userId, expiresAt);
    return { token, userId, expiresAt };
  }

  /** The user of a live session token; null for anything else (expired, signed out, malformed). */
  async userOf(token: string, now = new Date()): Promise<string | null> {
    if (!TOKEN.test(token)) return null;
    return (await this.store.live(sha256(token), now))?.userId ?? null;
  }

  /** Ends the session; false when the token names none. */
  signOut(token: string): Promise<boolean> {
    return TOKEN.test(token) ? this.store.delete(sha256(token)) : Promise.resolve(false);
  }

  isOperatorToken(token: string): boolean {
    return this.options.operatorToken !== null && secretsEqual(token, this.options.operatorToken);
  }
}
