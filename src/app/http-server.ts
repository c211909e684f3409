// The HTTP server: reads requests and hands them to the appservice API, the GraphQL
// endpoints or the REST adapter.
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  type Server,
  ServerResponse,
} from "node:http";
import type { GraphQLSchema } from "graphql";
import { TrustedProxies } from "../security/client-ip.ts";
import { handleAppservice, matrixError } from "../projection/appservice-endpoint.ts";
import { RestApi, corsHeaders, requireOperator, routeIdOf, sendProblem } from "../rest/api.ts";
import { bearerToken } from "../security/bearer.ts";
import { randomUUID } from "node:crypto";
import { PROBLEM_CONTENT_TYPE, problem, toProblem } from "../rest/problem.ts";
import type { Route } from "../rest/route.ts";
import { createGraphQLEndpoints, graphqlCaller } from "./graphql-endpoint.ts";
import { answerFramingError } from "./framing-errors.ts";
import { readBody, type Refusal } from "../rest/request-body.ts";
import type { Services } from "./services.ts";
import { PLAIN_REQUEST_ID, requestLineWriter, requestPath } from "./logger.ts";
import { APPSERVICE_MAX_BODY_BYTES, MAX_BODY_BYTES } from "../config/limits.ts";
import { serveWidgetAssets } from "../widget/serve.ts";
import { serveDesk } from "../desk/serve.ts";
import { allowedHomeservers } from "../features/dashboard/openid.ts";
import { dashboardSignIn } from "../features/dashboard/routes.ts";

function problemTooLarge(limit: number, path: string, headers: Record<string, string | undefined>): Refusal {
  const body = problem("payload-too-large", 413, `Request bodies are limited to ${limit} bytes.`, { instance: path });
  return {
    status: 413,
    headers: { "Content-Type": PROBLEM_CONTENT_TYPE, "X-Content-Type-Options": "nosniff", ...corsHeaders(headers) },
    body: JSON.stringify(body),
  };
}

/** The appservice API answers in Matrix's error format. */
function matrixTooLarge(limit: number): Refusal {
  return {
    status: 413,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ errcode: "M_TOO_LARGE", error: `Transactions are limited to ${limit} bytes.` }),
  };
}

/**
 * The request's headers as single strings. Node has them lowercased and joins repeats with ", ",
 * but for set-cookie, which it gives as an array: only then is a copy made.
 */
function singleValuedHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const cookies = req.headers["set-cookie"];
  if (cookies === undefined) return req.headers as Record<string, string | undefined>;
  return Object.assign({}, req.headers as Record<string, string | undefined>, { "set-cookie": cookies.join(", ") });
}

/**
 * A response that carries its request's id (X-Request-Id) in its head however the head is
 * written: by writeHead with headers, or implicitly by the first write. Setting the header
 * up front instead would make every writeHead merge its headers one setHeader at a time.
 */
class ServiceResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  requestId = "";

  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    maybeHeaders?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const reason = typeof reasonOrHeaders === "string" ? reasonOrHeaders : undefined;
    const headers = typeof reasonOrHeaders === "string" ? maybeHeaders : reasonOrHeaders;
    if (this.requestId === "" || this.hasHeader("x-request-id"))
      return reason === undefined ? super.writeHead(statusCode, headers) : super.writeHead(statusCode, reason, headers);
    // The callers' header objects may be shared constants: extended in a copy, never in place.
    const withId = Array.isArray(headers)
      ? [...headers, "X-Request-Id", this.requestId]
      : { "X-Request-Id": this.requestId, ...headers };
    return reason === undefined ? super.writeHead(statusCode, withId) : super.writeHead(statusCode, reason, withId);
  }
}

/** The HTTP server, and what a graceful stop needs of it. */
export interface ServiceHttpServer {
  server: Server;
  /** Requests being answered now (SSE streams included). */
  readonly inFlight: number;
  /** Ends every open SSE stream with a retry hint. */
  endStreams(): number;
}

export function createHttpServer(services: Services, schema: GraphQLSchema, routes: Route[]): ServiceHttpServer {
  const rest = new RestApi(
    {
      config: services.config,
      signals: services.signals,
      log: services.log,
      operations: services,
      requireClaim: (siteId, token) => services.sites.requireClaim(siteId, token),
      requireSiteWrite: (siteId, pageSlug, request) => services.siteWriteAuth.require(siteId, pageSlug, request),
      mediaBase: (request) => services.mediaUrls.resolveBase(request),
      sharedRateLimits: services.sharedRateLimits,
    },
    schema,
    routes,
  );
  const proxies = new TrustedProxies(services.config.server.trustedProxies);
  const operatorToken = services.config.security.operatorToken;
  // An anonymous GraphQL sign-in spends the REST sign-in's budget (dashboardSignIn's route).
  const graphql = createGraphQLEndpoints(services, schema, (req) => {
    const headers = singleValuedHeaders(req);
    const clientIp = proxies.clientAddress(req.socket.remoteAddress ?? "", headers["x-forwarded-for"]);
    return rest.spend(dashboardSignIn.rateLimit, {
      method: req.method ?? "POST",
      target: req.url ?? "/graphql",
      headers,
      clientIp,
      viaTrustedProxy: proxies.has(req.socket.remoteAddress ?? ""),
    });
  });
  // The homeservers the desk may log in to (its sign-in page lists them; its CSP allows them).
  const deskHomeservers = [
    ...allowedHomeservers(services.config.dashboard.openidHomeservers, {
      serverName: services.config.matrix.serverName,
      baseUrl: services.config.matrix.homeserverUrl,
    }),
  ].map(([name, { baseUrl }]) => ({ name, url: baseUrl }));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = req.url ?? "/";
    const path = target.split("?")[0]!;
    const headers = singleValuedHeaders(req);
    const clientIp = proxies.clientAddress(req.socket.remoteAddress ?? "", headers["x-forwarded-for"]);
    const viaTrustedProxy = proxies.has(req.socket.remoteAddress ?? "");
    // A present Authorization header is a bearer token on every route, or refused; the
    // appservice API reads its own (and answers in Matrix's error format).
    if (headers.authorization !== undefined && !path.startsWith("/_matrix/app/")) {
      try {
        bearerToken(headers.authorization);
      } catch (err) {
        sendProblem(res, toProblem(err, path).problem, corsHeaders(headers));
        return;
      }
    }
    if (path === "/metrics" && operatorToken) {
      try {
        requireOperator(operatorToken, { method: req.method!, target, headers, clientIp, viaTrustedProxy });
      } catch (err) {
        sendProblem(res, toProblem(err, path).problem);
        return;
      }
      await sendMetrics(services, res);
      return;
    }
    // Orchestrator probes (docs/operations.md#health): outside the API, never rate limited.
    if (path === "/health/live" || path === "/health/ready") {
      const body = path === "/health/live" ? { live: true } : await services.health.ready();
      const status = "ready" in body && !body.ready ? 503 : 200;
      res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
      res.end(JSON.stringify(body));
      return;
    }
    if (path === "/graphql" || path === "/graphql/stream") {
      let endpoints: (typeof graphql)[keyof typeof graphql];
      try {
        endpoints = graphql[await graphqlCaller(services, headers, req.method ?? "GET")];
      } catch (err) {
        sendProblem(res, toProblem(err, path).problem);
        return;
      }
      if (path === "/graphql") await endpoints.yoga(req, res);
      else await endpoints.sse(req, res);
      return;
    }
    if (path.startsWith("/_matrix/app/")) {
      await handleAppservice(services, req, res, target, () =>
        readBody(req, res, APPSERVICE_MAX_BODY_BYTES, () => matrixTooLarge(APPSERVICE_MAX_BODY_BYTES)),
      );
      return;
    }
    // Static assets (the embeddable widget and the SDK, the desk): never under /api/.
    if (!path.startsWith("/api/")) {
      if (await serveWidgetAssets(req, res, path)) return;
      if (await serveDesk(req, res, path, deskHomeservers)) return;
    }
    // The adapter reads the body only after admission. A refused request's unread body is
    // discarded by Node as it arrives (the connection stays usable), never buffered.
    await rest.handle(
      res,
      { method: req.method ?? "GET", target, headers, clientIp, viaTrustedProxy },
      (limit = MAX_BODY_BYTES) => readBody(req, res, limit, () => problemTooLarge(limit, path, headers)),
    );
  };

  let inFlight = 0;
  services.metrics.sources.readCache = () => ({
    hits: rest.reads.hits,
    misses: rest.reads.misses,
    executions: rest.reads.executions,
  });
  services.metrics.sources.sseStreams = () => rest.streamCount;
  const logRequest = requestLineWriter(services.logger);
  const server = createServer({ ServerResponse: ServiceResponse }, (req, res) => {
    inFlight++;
    const started = process.hrtime.bigint();
    // A caller's request id (a proxy's) is kept when it is plain; otherwise one is made.
    const given = req.headers["x-request-id"];
    const requestId = typeof given === "string" && PLAIN_REQUEST_ID.test(given) ? given : randomUUID();
    res.requestId = requestId;
    // "close" comes once per response: `on` spares the once-wrapper.
    res.on("close", () => {
      inFlight--;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeIdOf(res) ?? routeKind(req.url ?? "/");
      const status = res.headersSent ? res.statusCode : 0;
      services.metrics.httpDuration.record(route, req.method ?? "", status, seconds);
      logRequest({
        requestId,
        method: req.method ?? "",
        route,
        target: req.url ?? "/",
        status,
        latencyMs: Math.round(seconds * 1e6) / 1e3,
      });
    });
    // A stopping instance answers what is in flight but asks clients not to reuse the connection.
    if (services.health.stopping) res.setHeader("Connection", "close");
    handle(req, res).catch((err) => {
      services.logger.error({ err }, "request failed");
      if (res.headersSent) res.end();
      else if (req.url?.startsWith("/_matrix/app/"))
        matrixError(res, 500, "M_UNKNOWN", "The service failed to handle this request.");
      else sendProblem(res, problem("internal-error", 500, "The service failed to handle this request."));
    });
  });
  server.on("clientError", answerFramingError);
  return {
    server,
    get inFlight() {
      return inFlight;
    },
    endStreams: () => rest.endStreams(),
  };
}

/** The label of a request the route table did not answer. */
function routeKind(target: string): string {
  const path = requestPath(target);
  if (path.startsWith("/_matrix/app/")) return "appservice";
  if (path === "/graphql" || path === "/graphql/stream") return "graphql";
  if (path === "/metrics" || path === "/health/live" || path === "/health/ready")
    return path.slice(1).replace("/", "-");
  return "unrouted";
}

async function sendMetrics(services: Services, res: ServerResponse): Promise<void> {
  const { contentType, body } = await services.metrics.exposition();
  res.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" });
  res.end(body);
}

/** The separate metrics listener (metrics.listen_port): GET /metrics only, no credentials. */
export function createMetricsServer(services: Services): Server {
  return createServer((req, res) => {
    if (req.method === "GET" && (req.url ?? "/").split("?")[0] === "/metrics") {
      sendMetrics(services, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain" });
    res.end("not found\n");
  });
}
