// The HTTP server: reads requests and hands them to the appservice API, the GraphQL
// endpoints or the REST adapter.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { GraphQLSchema } from "graphql";
import type { RequestInfo } from "../domain/request.ts";
import { TrustedProxies } from "../security/client-ip.ts";
import { handleAppservice } from "../projection/appservice-endpoint.ts";
import { RestApi, requireOperator, sendProblem } from "../rest/api.ts";
import { problem, toProblem } from "../rest/problem.ts";
import type { Route } from "../rest/route.ts";
import { createGraphQLEndpoints } from "./graphql-endpoint.ts";
import type { Services } from "./services.ts";

/** Request bodies above this are refused (comments are text; media uploads come later). */
export const MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function lowercaseHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  return headers;
}

export function createHttpServer(services: Services, schema: GraphQLSchema, routes: Route[]): Server {
  const rest = new RestApi(services, schema, routes);
  const proxies = new TrustedProxies(services.config.server.trustedProxies);
  const operatorToken = services.config.security.operatorToken;
  const graphql = operatorToken ? createGraphQLEndpoints(services, schema) : null;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = req.url ?? "/";
    const path = target.split("?")[0]!;
    const headers = lowercaseHeaders(req);
    const clientIp = proxies.clientAddress(req.socket.remoteAddress ?? "", headers["x-forwarded-for"]);
    if (graphql && (path === "/graphql" || path === "/graphql/stream")) {
      try {
        requireOperator(operatorToken, { method: req.method!, target, headers, rawBody: Buffer.alloc(0), clientIp });
      } catch (err) {
        sendProblem(res, toProblem(err, path).problem);
        return;
      }
      if (path === "/graphql") await graphql.yoga(req, res);
      else await graphql.sse(req, res);
      return;
    }
    let rawBody: Buffer;
    try {
      rawBody = await readBody(req);
    } catch (err) {
      if (err instanceof BodyTooLarge) sendProblem(res, problem("payload-too-large", 413, `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`), { Connection: "close" });
      return;
    }
    if (path.startsWith("/_matrix/app/")) {
      await handleAppservice(services, req, res, target, rawBody);
      return;
    }
    const request: RequestInfo = { method: req.method ?? "GET", target, headers, rawBody, clientIp };
    await rest.handle(res, request);
  };

  return createServer((req, res) => {
    handle(req, res).catch((err) => {
      services.log(`http: ${(err as Error).stack ?? err}`);
      if (!res.headersSent) sendProblem(res, problem("internal-error", 500, "The service failed to handle this request."));
      else res.end();
    });
  });
}
