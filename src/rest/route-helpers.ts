// What several route modules share: path parameter sets, GraphQL variables of a page, operator access and the derived forms of a route (operator mirrors and
// the earlier revision's alternate paths).
import type { OperationRoute, RouteInput } from "./route.ts";
import { pathParams } from "./schemas.ts";

export const sitePath = { site_id: pathParams.site_id };
export const pagePath = { site_id: pathParams.site_id, page_slug: pathParams.page_slug };
/** A page's variables, and `more` of the route's own after them. */
export const pageVariables = <More extends Record<string, unknown>>(input: RouteInput, more?: More) => ({
  siteId: input.params.site_id,
  pageSlug: input.params.page_slug,
  ...(more as More),
});

/**
 * The problems of a route that waits on the homeserver (src/rest/problem.ts maps its failures):
 * 503 homeserver-unavailable with Retry-After, 502 homeserver-refused.
 */
export const homeserverProblems = (): Record<number, string[]> => ({
  502: ["homeserver-refused"],
  503: ["homeserver-unavailable"],
});

export const operatorAuth = { auth: "operator", rateLimit: "operator", tag: "Operator" } as const;

/** The operator's mirror of an owner route: the same operation and answers, under operator auth. */
export function operatorMirror<Data, BodySchema>(
  route: OperationRoute<Data, BodySchema>,
  operationId: string,
  path: string,
  extra: Partial<OperationRoute<Data, BodySchema>> = {},
): OperationRoute<Data, BodySchema> {
  const { postAuthRateLimit: _ownerBudget, ...rest } = route;
  return { ...rest, ...operatorAuth, operationId, path, ...extra };
}

/** The same operation under the earlier revision's path (`extra` for a different parameter form). */
export const alternate = <Data, BodySchema>(
  route: OperationRoute<Data, BodySchema>,
  path: string,
  extra: Partial<OperationRoute<Data, BodySchema>> = {},
): OperationRoute<Data, BodySchema> => ({
  ...route,
  operationId: `${route.operationId}Alternate`,
  path,
  description: [`Alternate form of ${route.method} ${route.path}; the same operation.`, route.description]
    .filter(Boolean)
    .join(" "),
  ...extra,
});
