// Dashboard sign-in and sign-out. Everything else a dashboard does is GraphQL (/graphql with the
// session; /graphql/stream for the site's activity).
import type { OperationRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { requestBodies } from "./schemas.ts";

type SignedIn = {
  dashboardSignIn: { session_token: string; user_id: string; expires_at: string; cookie: string };
};

export const dashboardSignIn: OperationRoute<SignedIn, typeof requestBodies.dashboardSignIn> = {
  kind: "operation",
  operationId: "dashboardSignIn",
  method: "POST",
  path: "/api/v1/dashboard/sessions",
  tag: "Dashboard",
  summary: "Sign in to dashboards with a Matrix OpenID token; answers a session.",
  description:
    "The dashboard logs the user in to their homeserver, asks it for an OpenID token " +
    "(`POST /_matrix/client/v3/user/{userId}/openid/request_token`) and sends it here; the service asks that homeserver " +
    "(`GET /_matrix/federation/v1/openid/userinfo`) who it names. Only homeservers in dashboard.openid_homeservers are asked " +
    "(default: the service's own). The session is a bearer token and an HttpOnly SameSite=Strict cookie (Secure over HTTPS); " +
    "what it may read and do is the user's roles from power levels, checked on every call. " +
    "403 openid-token-invalid: the homeserver does not vouch for the token (forged, expired), or it was already exchanged (a token signs in once); " +
    "403 homeserver-not-allowed. 502 openid-homeserver-unreachable: the homeserver could not be asked, or answered nonsense. " +
    "Spends the verificationConfirm budget (a request that makes the service ask another server).",
  auth: "public",
  rateLimit: "verificationConfirm",
  body: { schema: requestBodies.dashboardSignIn, optional: false },
  document: `mutation DashboardSignIn($matrixServerName: String!, $accessToken: String!) {
    dashboardSignIn(matrixServerName: $matrixServerName, accessToken: $accessToken) {
      session_token: sessionToken user_id: userId expires_at: expiresAt cookie
    }
  }`,
  variables: (input) => ({ matrixServerName: input.body.matrix_server_name, accessToken: input.body.access_token }),
  respond: (data) => {
    const { cookie, ...session } = data.dashboardSignIn;
    return { status: 201, body: session, headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } };
  },
  responses: {
    201: {
      description: "Signed in: the session (also set as the dashboard_session cookie).",
      schema: ref("DashboardSession"),
      headers: {
        "Set-Cookie": "dashboard_session=<token>; Path=/; Max-Age=<ttl>; HttpOnly; SameSite=Strict[; Secure]",
      },
    },
  },
  problems: {
    400: ["validation-error"],
    403: ["openid-token-invalid", "homeserver-not-allowed"],
    502: ["openid-homeserver-unreachable"],
  },
};

export const dashboardSignOut: OperationRoute<{ dashboardSignOut: { cookie: string } }> = {
  kind: "operation",
  operationId: "dashboardSignOut",
  method: "DELETE",
  path: "/api/v1/dashboard/session",
  tag: "Dashboard",
  summary: "Sign out: the presented session (bearer or cookie) is refused from now on.",
  description:
    "With the cookie, the request must carry the dashboard's own Origin (403 cross-origin-request otherwise). " +
    "403 not-signed-in: no session presented; 403 invalid-session: the session is unknown, expired or already signed out (the API never answers 401).",
  auth: "public",
  rateLimit: "publicRead",
  document: `mutation DashboardSignOut { dashboardSignOut { cookie } }`,
  variables: () => ({}),
  respond: (data) => ({ status: 204, headers: { "Set-Cookie": data.dashboardSignOut.cookie } }),
  responses: { 204: { description: "Signed out; the cookie is cleared." } },
  problems: { 403: ["not-signed-in", "invalid-session", "cross-origin-request"] },
};

export const dashboardRoutes: Route[] = [dashboardSignIn, dashboardSignOut];
