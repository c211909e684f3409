// POST /graphql (graphql-yoga) and /graphql/stream (graphql-sse subscriptions) for dashboards.
// The operator token reaches every field; a dashboard session (Authorization: Bearer or the
// session cookie) only the dashboard's root fields, each of which checks the caller's role on
// what it reads or changes (src/features/dashboard/access.ts). A caller with no credentials may
// only sign in (dashboardSignIn, as the REST sign-in does, spending its budget); anything else
// is refused before GraphQL runs.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { GraphQLError, type GraphQLSchema, specifiedRules, validate, type ValidationRule } from "graphql";
import { createHandler } from "graphql-sse";
import { DomainError, forbidden } from "../core/errors.ts";
import { sendProblem } from "../rest/api.ts";
import { PROBLEM_CONTENT_TYPE, problem, toProblem } from "../rest/problem.ts";
import { createContext, type GraphQLContext } from "../graphql/context.ts";
import { crossOrigin, invalidSession, notSignedIn, sameOrigin, sessionCookie } from "../features/dashboard/access.ts";
import { dashboardFieldsOnly, signInOnly } from "../features/dashboard/root-fields.ts";
import { bearerToken } from "../security/bearer.ts";
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
  /** The sign-in mutation only: callers with no credentials. */
  signIn: Endpoints;
}

/** Spends one unit of the REST sign-in's budget for this request's client; throws the 429 when it is spent. */
export type SpendSignInBudget = (req: IncomingMessage) => Promise<void> | undefined;

export function createGraphQLEndpoints(
  services: Services,
  schema: GraphQLSchema,
  spendSignInBudget: SpendSignInBudget,
): GraphQLEndpoints {
  return {
    operator: endpoints(services, schema, []),
    dashboard: endpoints(services, schema, [dashboardFieldsOnly]),
    signIn: signInEndpoints(services, schema, spendSignInBudget),
  };
}

/** A refusal as a problem document in a fetch Response (what a yoga request parser may answer instead of parameters). */
function problemResponse(err: unknown, instance: string): Response {
  const { problem, headers } = toProblem(err, instance);
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { ...headers, "Content-Type": PROBLEM_CONTENT_TYPE, "X-Content-Type-Options": "nosniff" },
  });
}

/**
 * For callers with no credentials: /graphql runs a document that only signs in, once it has
 * spent the sign-in's budget, and answers anything else 403 not-signed-in as before;
 * /graphql/stream (subscriptions) is refused so.
 */
function signInEndpoints(services: Services, schema: GraphQLSchema, spend: SpendSignInBudget): Endpoints {
  const { yoga } = endpoints(
    services,
    schema,
    [],
    [
      {
        onRequestParse: ({ requestParser, setRequestParser, serverContext }) => {
          if (!requestParser) return;
          setRequestParser(async (request) => {
            const params = await requestParser(request);
            if (params instanceof Response) return params;
            if (Array.isArray(params) || !signInOnly(params.query)) return problemResponse(notSignedIn(), "/graphql");
            try {
              await spend(serverContext.req);
            } catch (err) {
              return problemResponse(err, "/graphql");
            }
            return params;
          });
        },
      },
    ],
  );
  const sse = async (_req: unknown, res: ServerResponse) =>
    sendProblem(res, toProblem(notSignedIn(), "/graphql/stream").problem);
  return { yoga, sse: sse as Endpoints["sse"] };
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
  if (session === null || session === undefined) return "signIn";
  if (cookie && method !== "GET" && method !== "HEAD" && !sameOrigin(headers, services.config.server.publicBaseUrl))
    throw crossOrigin();
  if ((await sessions.userOf(session)) === null) throw invalidSession();
  return "dashboard";
}

/** Domain errors are meant for the caller: their code and status exposed; anything unexpected masked. */
function exposed(error: unknown, message = "Unexpected error."): GraphQLError {
  const original = (error as GraphQLError).originalError;
  if (original instanceof DomainError)
    return new GraphQLError(original.message, {
      extensions: { code: original.code, status: original.status, errors: original.extra.errors },
    });
  return error instanceof GraphQLError && !original ? error : new GraphQLError(message);
}

function endpoints(
  services: Services,
  schema: GraphQLSchema,
  rules: ValidationRule[],
  extraPlugins: Plugin<{}, Raw>[] = [],
): Endpoints {
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
    plugins: [
      ...rules.map((rule): Plugin => ({ onValidate: ({ addValidationRule }) => addValidationRule(rule) })),
      ...extraPlugins,
    ],
    maskedErrors: { maskError: (error, message) => exposed(error, message) },
  });
  const handler = createHandler<IncomingMessage, undefined>({
    schema,
    validate: (s, document) => validate(s, document, [...specifiedRules, ...rules]),
    context: (req) => context(req.raw) as never,
    // The same errors as /graphql's: a refused subscription carries its code and status.
    onNext: (_ctx, _req, result) =>
      result.errors ? { ...result, errors: result.errors.map((error) => exposed(error)) } : undefined,
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
