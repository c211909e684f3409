/// <reference lib="dom" />
// The desk's only ways to the service: the public GraphQL for dashboards (POST /graphql, and
// /graphql/stream with graphql-sse for the site's activity) and the two sign-in routes. A Matrix
// user is signed in by the session cookie (HttpOnly, SameSite=Strict: the desk never sees it);
// the operator by the token as a bearer, kept in this tab's sessionStorage only.
import { createClient } from "graphql-sse";
import { t } from "./strings.ts";

const OPERATOR_KEY = "desk:operator-token";

export class DeskError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** Signed out: the session is missing, ended or expired (the sign-in page follows). */
export const SIGNED_OUT = new Set(["not-signed-in", "invalid-session", "invalid-operator-token"]);

const operatorToken = () => sessionStorage.getItem(OPERATOR_KEY);
const authHeaders = (): Record<string, string> => {
  const token = operatorToken();
  return token ? { authorization: `Bearer ${token}` } : {};
};

/** A problem document's or a GraphQL error's message and code. */
async function failure(res: Response): Promise<DeskError> {
  const body = (await res.json().catch(() => null)) as { detail?: string; code?: string } | null;
  return new DeskError(body?.detail ?? `HTTP ${res.status}`, body?.code ?? null);
}

export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch("/graphql", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", ...authHeaders() },
    body: JSON.stringify({ query, variables }),
  });
  // A refusal before GraphQL (no or an unknown session) is a problem document.
  if ((res.headers.get("content-type") ?? "").includes("problem+json")) throw await failure(res);
  const body = (await res.json()) as { data?: T; errors?: Array<{ message: string; extensions?: { code?: string } }> };
  const error = body.errors?.[0];
  if (error) throw new DeskError(error.message, error.extensions?.code ?? null);
  return body.data as T;
}

/**
 * Subscribes to a GraphQL subscription over /graphql/stream (a stream of its own, retried by
 * the client when it drops); `connected` is told each time the stream is open. Returns the unsubscribe.
 */
export function subscribe<T>(
  query: string,
  variables: Record<string, unknown>,
  sink: { next: (data: T) => void; error: (err: DeskError) => void; connected?: () => void },
): () => void {
  const client = createClient({
    url: "/graphql/stream",
    credentials: "same-origin",
    headers: authHeaders,
    on: { connected: () => sink.connected?.() },
  });
  const unsubscribe = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => {
        const error = result.errors?.[0];
        if (error) sink.error(new DeskError(error.message, (error.extensions?.code as string) ?? null));
        else if (result.data) sink.next(result.data as T);
      },
      error: (err) => sink.error(new DeskError(err instanceof Error ? err.message : String(err), null)),
      complete: () => {},
    },
  );
  return () => {
    unsubscribe();
    client.dispose();
  };
}

export interface Homeserver {
  name: string;
  url: string;
}

async function matrix<T>(base: string, path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as T & { error?: string; errcode?: string };
  if (!res.ok) throw new DeskError(answer.error ?? `HTTP ${res.status}`, answer.errcode ?? null);
  return answer;
}

/**
 * Matrix OpenID sign-in: logs in to the homeserver (client-server API), asks it for an OpenID
 * token, hands that to the service (which answers the session cookie), then logs the Matrix
 * device out, whatever the service answered: the service never sees the Matrix access token.
 */
export async function signInWithMatrix(homeserver: Homeserver, user: string, password: string): Promise<void> {
  const login = await matrix<{ user_id: string; access_token: string }>(homeserver.url, "/_matrix/client/v3/login", {
    type: "m.login.password",
    identifier: { type: "m.id.user", user },
    password,
    initial_device_display_name: t("deviceName"),
  });
  try {
    const openId = await matrix<{ access_token: string; matrix_server_name: string }>(
      homeserver.url,
      `/_matrix/client/v3/user/${encodeURIComponent(login.user_id)}/openid/request_token`,
      {},
      login.access_token,
    );
    const res = await fetch("/api/v1/dashboard/sessions", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ matrix_server_name: openId.matrix_server_name, access_token: openId.access_token }),
    });
    if (!res.ok) throw await failure(res);
    sessionStorage.removeItem(OPERATOR_KEY);
  } finally {
    await matrix(homeserver.url, "/_matrix/client/v3/logout", {}, login.access_token).catch(() => {});
  }
}

/** The operator signs in with the token: checked with one query before it is kept. */
export async function signInAsOperator(token: string): Promise<void> {
  sessionStorage.setItem(OPERATOR_KEY, token);
  try {
    await gql("{ me { kind } }");
  } catch (err) {
    sessionStorage.removeItem(OPERATOR_KEY);
    throw err;
  }
}

export async function signOut(): Promise<void> {
  if (operatorToken()) {
    sessionStorage.removeItem(OPERATOR_KEY);
    return;
  }
  await fetch("/api/v1/dashboard/session", { method: "DELETE", credentials: "same-origin" });
}
