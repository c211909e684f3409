// POST /graphql (graphql-yoga) and /graphql/stream (graphql-sse subscriptions) for internal
// dashboards. Both require the operator token and exist only when one is configured.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { GraphQLError, type GraphQLSchema } from "graphql";
import { createHandler } from "graphql-sse/lib/use/http";
import { DomainError } from "../core/errors.ts";
import { createContext, type GraphQLContext } from "../graphql/context.ts";
import type { Services } from "./services.ts";

export interface GraphQLEndpoints {
  yoga: YogaServerInstance<{ req: IncomingMessage; res: ServerResponse }, GraphQLContext>;
  sse: ReturnType<typeof createHandler<{ req: IncomingMessage; res: ServerResponse }>>;
}

export function createGraphQLEndpoints(services: Services, schema: GraphQLSchema): GraphQLEndpoints {
  const yoga = createYoga<{ req: IncomingMessage; res: ServerResponse }, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: false,
    context: () => createContext(services, null, services.mediaUrls.resolveBase(null)),
    maskedErrors: {
      // Domain errors are meant for the caller: expose their code and status.
      maskError: (error, message) => {
        const original = (error as GraphQLError).originalError;
        if (original instanceof DomainError) {
          return new GraphQLError(original.message, { extensions: { code: original.code, status: original.status, errors: original.extra.errors } });
        }
        return error instanceof GraphQLError && !original ? error : new GraphQLError(message);
      },
    },
  });
  const sse = createHandler({ schema, context: () => createContext(services, null, services.mediaUrls.resolveBase(null)) as never });
  return { yoga, sse };
}
