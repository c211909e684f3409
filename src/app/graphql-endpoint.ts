// POST /graphql (graphql-yoga) and /graphql/stream (graphql-sse subscriptions) for dashboards.
// The operator token reaches every field; a dashboard session (Authorization: Bearer or the
// session cookie) only the dashboard's root fields, each of which checks the caller's role on
// what it reads or changes (src/features/dashboard/access.ts). Anyone else is refused before
// GraphQL runs.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { GraphQLError, type GraphQLSchema, specifiedRules, validate, type ValidationRule } from "graphql";
import { createHandler } from "graphql-sse";
import { DomainError, forbidden } from "../core/errors.ts";
import { createContext, type GraphQLContext } from "../graphql/context.ts";
import { crossOrigin, invalidSession, notSignedIn, sameOrigin, sessionCookie } from "../features/dashboard/access.ts";
import { dashboardFieldsOnly } from "../features/dashboard/root-fields.ts";
import { bearerToken } from "../security/bearer.ts";
import { problem } from "../rest/problem.ts";
import { sendProblem } from "../rest/api.ts";
import type { Services } from "./services.ts";

type Raw = { req: IncomingMessage; res: ServerResponse };

interface Endpoints {
  yoga: YogaServerInstance<Raw, GraphQLContext>;
  sse: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/** The stable codes of what graphql-sse refuses, by its status. */
const STREAM_PROBLEM_CODES: Record<number, string> = {
  400: "invalid-graphql-request",
  404: "stream-not-found",
  405: "method-not-allowed",
  406: "not-acceptable",
  409: "stream-conflict",
  415: "unsupported-media-type",
};

/** graphql-sse's refusal body (`{"errors":[{message}]}`, or none) as a problem's detail. */
function streamRefusal(body: unknown, statusText: string | undefined): string {
  if (typeof body === "string") {
    try {
      const message = (JSON.parse(body) as { errors?: Array<{ message?: unknown }> }).errors?.[0]?.message;
      if (typeof message === "string") return message;
    } catch {}
  }
  return statusText ?? "The stream request was refused.";
}

export interface GraphQLEndpoints {
  /** The whole schema: the operator. */
  operator: Endpoints;
  /** The dashboard's root fields only: signed-in Matrix users. */
  dashboard: Endpoints;
}

export function createGraphQLEndpoints(services: Services, schema: GraphQLSchema): GraphQLEndpoints {
  return { operator: endpoints(services, schema, []), dashboard: endpoints(services, schema, [dashboardFieldsOnly]) };
}

/**
 * Which endpoints serve this request, or the problem that refuses it: the operator token, a
 * live dashboard session (by bearer, or by cookie from the service's own origin), else 403.
 */
export async function graphqlCaller(
  services: Services,
  headers: Record<string, string | undefined>,
  method: string,
): Promise<keyof GraphQLEndpoints> {
  const bearer = bearerToken(headers.authorization);
  const sessions = services.dashboardSessions;
  if (bearer !== null && sessions.isOperatorToken(bearer)) return "operator";
  const cookie = bearer === null ? sessionCookie(headers.cookie) : null;
  const session = bearer ?? cookie;
  if (bearer !== null && !bearer.startsWith("ds_"))
    throw forbidden(
      "invalid-operator-token",
      "A valid operator token or dashboard session is required (Authorization: Bearer …).",
    );
  if (session === null || session === undefined) throw notSignedIn();
  if (cookie && method !== "GET" && method !== "HEAD" && !sameOrigin(headers, services.config.server.publicBaseUrl))
    throw crossOrigin();
  if ((await sessions.userOf(session)) === null) throw invalidSession();
  return "dashboard";
}

function endpoints(services: Services, schema: GraphQLSchema, rules: ValidationRule[]): Endpoints {
  const context = (req: IncomingMessage) =>
    createContext(services, null, services.mediaUrls.resolveBase(null), null, null, {
      authorization: req.headers.authorization,
      cookie: req.headers.cookie,
    });
  const yoga = createYoga<Raw, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: false,
    context: ({ req }) => context(req),
    plugins: rules.map((rule): Plugin => ({ onValidate: ({ addValidationRule }) => addValidationRule(rule) })),
    maskedErrors: {
      // Domain errors are meant for the caller: expose their code and status.
      maskError: (error, message) => {
        const original = (error as GraphQLError).originalError;
        if (original instanceof DomainError) {
          return new GraphQLError(original.message, {
            extensions: { code: original.code, status: original.status, errors: original.extra.errors },
          });
        }
        return error instanceof GraphQLError && !original ? error : new GraphQLError(message);
      },
    },
  });
  const handler = createHandler<IncomingMessage, undefined>({
    schema,
    validate: (s, document) => validate(s, document, [...specifiedRules, ...rules]),
    context: (req) => context(req.raw) as never,
  });
  // graphql-sse's own answers, but its refusals as problem documents like every other route's.
  const sse = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const [body, init] = await handler({
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: { get: (key) => [req.headers[key] ?? []].flat().join("\n") || undefined },
      body: () =>
        new Promise((resolve, reject) => {
          let text = "";
          req.setEncoding("utf8");
          req.on("data", (chunk: string) => (text += chunk));
          req.once("error", reject);
          req.once("end", () => resolve(text));
        }),
      raw: req,
      context: undefined,
    });
    if (init.status >= 400) {
      const code = STREAM_PROBLEM_CODES[init.status] ?? "invalid-graphql-request";
      sendProblem(
        res,
        problem(code, init.status, streamRefusal(body, init.statusText), { instance: "/graphql/stream" }),
      );
      return;
    }
    res.writeHead(init.status, init.statusText, init.headers);
    if (!body || typeof body === "string") {
      res.end(body);
      return;
    }
    const stop = () => void body.return(undefined);
    res.once("close", stop);
    try {
      for await (const chunk of body) {
        if (!res.writable) break;
        await new Promise<void>((resolve, reject) => res.write(chunk, (err) => (err ? reject(err) : resolve())));
      }
    } finally {
      res.off("close", stop);
      res.end();
    }
  };
  return { yoga, sse };
}
