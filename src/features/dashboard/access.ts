// Who is calling a dashboard field, and whether they may: every dashboard field and mutation
// calls requireSiteRole (or requireSiteReader, requireOperator) itself, so a role is checked
// against the projected power levels at the time of the call: a moderator whose level is
// lowered in Matrix loses access on their next call, whatever session they hold.
//
// Callers present the operator token or a dashboard session token as `Authorization: Bearer`,
// or the session in the `dashboard_session` cookie (the same-origin dashboard; /graphql refuses
// a cookie-authenticated request without a same-origin Origin, src/app/graphql-endpoint.ts).
import { bearerToken } from "../../security/bearer.ts";
import { DomainError, forbidden } from "../../core/errors.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { AccessStore } from "./access-store.ts";
import { type GovernorRole, pageRoleOf, roleReaches, siteRoleOf, pageRolesOf } from "./governor-roles.ts";
import { type DashboardSessions, SESSION_COOKIE } from "./sessions.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    dashboardSessions: DashboardSessions;
  }
}

/** The operator (the operator token: every site, every field) or a signed-in Matrix user. */
export type Governor = { kind: "operator" } | { kind: "matrix"; userId: string };

export const notSignedIn = () =>
  new DomainError(
    "not-signed-in",
    403,
    "Sign in first: a dashboard session (Authorization: Bearer or the dashboard_session cookie) or the operator token.",
  );

export const invalidSession = () =>
  new DomainError("invalid-session", 403, "The session token is unknown, expired or signed out; sign in again.");

const notAGovernor = (what: string) =>
  forbidden("not-a-governor", `Your Matrix account does not hold the role this needs (${what}).`);

/** The token the caller presented: Authorization: Bearer first, else the session cookie; null for none. */
export function presentedToken(ctx: GraphQLContext): { token: string; via: "bearer" | "cookie" } | null {
  const credentials = ctx.credentials;
  if (!credentials) return null;
  const bearer = bearerToken(credentials.authorization);
  if (bearer) return { token: bearer, via: "bearer" };
  const cookie = sessionCookie(credentials.cookie);
  return cookie ? { token: cookie, via: "cookie" } : null;
}

/** The dashboard_session cookie's value in a Cookie header. */
export function sessionCookie(header: string | undefined): string | null {
  for (const part of (header ?? "").split(";")) {
    const [name, ...value] = part.split("=");
    if (name?.trim() === SESSION_COOKIE) return value.join("=").trim() || null;
  }
  return null;
}

/** Who is calling, checked now: 403 not-signed-in without credentials, invalid-session for a session that is not live. */
export async function currentGovernor(ctx: GraphQLContext): Promise<Governor> {
  const presented = presentedToken(ctx);
  if (!presented) throw notSignedIn();
  const sessions = ctx.services.dashboardSessions;
  if (presented.via === "bearer" && sessions.isOperatorToken(presented.token)) return { kind: "operator" };
  const userId = await sessions.userOf(presented.token);
  if (!userId) throw invalidSession();
  return { kind: "matrix", userId };
}

/**
 * The caller, if they hold at least `minimum` on the site — with `pageSlug`, on that page (their
 * site role, or a page role from the page room's levels); without, site-wide (the Space's
 * levels). 403 not-signed-in / invalid-session without a live session (the API never answers 401), not-a-governor without the role. The operator passes always.
 */
export async function requireSiteRole(
  ctx: GraphQLContext,
  siteId: string,
  minimum: GovernorRole,
  pageSlug?: string,
): Promise<Governor> {
  const governor = await currentGovernor(ctx);
  if (governor.kind === "operator") return governor;
  const rooms = await new AccessStore(ctx.services.db).siteRoomLevels(siteId);
  const role =
    pageSlug === undefined ? siteRoleOf(rooms, governor.userId) : pageRoleOf(rooms, governor.userId, pageSlug);
  if (!roleReaches(role, minimum))
    throw notAGovernor(pageSlug === undefined ? `${minimum} of site ${siteId}` : `${minimum} of ${siteId}/${pageSlug}`);
  return governor;
}

/**
 * The caller, if they hold any role on the site: a site role, or a moderator's on one of its
 * pages (a page moderator reads the site's dashboard; acting needs requireSiteRole). Refusals as there.
 */
export async function requireSiteReader(ctx: GraphQLContext, siteId: string): Promise<Governor> {
  const governor = await currentGovernor(ctx);
  if (governor.kind === "operator") return governor;
  const rooms = await new AccessStore(ctx.services.db).siteRoomLevels(siteId);
  if (siteRoleOf(rooms, governor.userId) === null && pageRolesOf(rooms, governor.userId).length === 0)
    throw notAGovernor(`a role on site ${siteId}`);
  return governor;
}

/** The operator only (the queue, quarantined rooms, upgrade intents, repairs). */
export async function requireOperator(ctx: GraphQLContext): Promise<void> {
  const governor = await currentGovernor(ctx);
  if (governor.kind !== "operator") throw forbidden("operator-only", "Only the operator token may read this.");
}

/**
 * Whether a request carrying the session cookie comes from the service's own pages: its Origin
 * names the public base URL's host (server.public_base_url), else the request's Host. A browser
 * sends Origin on every cross-origin request and on same-origin ones other than GET and HEAD,
 * which is what a cookie must not be spent by (SameSite=Strict is the first line; this the second).
 */
export function sameOrigin(headers: Record<string, string | undefined>, publicBaseUrl: string | null): boolean {
  const origin = headers.origin;
  if (!origin || !URL.canParse(origin)) return false;
  const expected = publicBaseUrl ? new URL(publicBaseUrl).host : headers.host;
  return expected !== undefined && new URL(origin).host === expected.toLowerCase();
}

export const crossOrigin = () =>
  forbidden(
    "cross-origin-request",
    "A request signed in by the session cookie must come from the dashboard's own origin (its Origin header).",
  );
