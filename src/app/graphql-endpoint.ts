// POST /graphql (graphql-yoga) and /graphql/stream (graphql-sse subscriptions) for dashboards.
// The operator token reaches every field; a dashboard session (Authorization: Bearer or the
// session cookie) only the dashboard's root fields, each of which checks the caller's role on
// what it reads or changes (src/features/dashboard/access.ts). Anyone else is refused before
// GraphQL runs.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { GraphQLError, type GraphQLSchema, specifiedRules, validate, type ValidationRule } from "graphql";
import { createHandler } from "graphql-sse/lib/use/http";
import { DomainError, forbidden } from "../core/errors.ts";
import { createContext, type GraphQLContext } from "../graphql/context.ts";
import { crossOrigin, invalidSession, notSignedIn, sameOrigin, sessionCookie } from "../features/dashboard/access.ts";
import { dashboardFieldsOnly } from "../features/dashboard/root-fields.ts";
import type { Services } from "./services.ts";

type Raw = { req: IncomingMessage; res: ServerResponse };

interface Endpoints {
  yoga: YogaServerInstance<Raw, GraphQLContext>;
  sse: ReturnType<typeof createHandler<Raw>>;
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
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "")?.[1];
  const sessions = services.dashboardSessions;
  if (bearer !== undefined && sessions.isOperatorToken(bearer)) return "operator";
  const cookie = bearer === undefined ? sessionCookie(headers.cookie) : null;
  const session = bearer ?? cookie;
  if (headers.authorization !== undefined && !bearer?.startsWith("ds_"))
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
  const sse = createHandler<Raw>({
    schema,
    validate: (s, document) => validate(s, document, [...specifiedRules, ...rules]),
    context: (req) => context(req.raw) as never,
  });
  return { yoga, sse };
}
