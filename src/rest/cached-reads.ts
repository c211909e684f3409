// Public reads through the read cache, in front of their GraphQL execution: the adapter has
// already rate-limited and validated the request. A hit is written as stored; a miss executes
// the route's operation once (concurrent identical misses share it) and stores the 200 body.
// A personalized read is the anonymous body plus one more operation (the route's overlay),
// which verifies the personalization and reads only what is personal. With the cache off
// (max_entries 0) there is no body to share: every read runs its route's operation as declared,
// a personalized one with its personal variables, in one execution.
import { parse, validate, type DocumentNode, type GraphQLSchema } from "graphql";
import type { Config } from "../config/config.ts";
import type { ClusterSignals } from "../cluster/signals.ts";
import { ANY_PAGE, CachedRead, ReadCache, type Generation, type ReadScope } from "./read-cache.ts";
import type { GraphQLData, OperationRoute, Route, RouteCache, RouteResult } from "./route.ts";

/** Runs a GraphQL document (null: the route's own) with variables; resolves its data or throws its first error. */
export type Execute = (document: DocumentNode | null, variables: Record<string, unknown>) => Promise<GraphQLData>;

export class CachedReads {
  readonly cache: ReadCache;
  private readonly overlays = new Map<Route, DocumentNode>();
  /** Cacheable reads answered from the cache, and not (metrics). */
  hits = 0;
  misses = 0;
  /** Misses that ran their read (the rest joined a concurrent identical one: single flight). */
  executions = 0;
  private readonly inflight = new Map<string, { since: Generation; read: Promise<CachedRead | RouteResult> }>();

  constructor(config: Config, signals: ClusterSignals, schema: GraphQLSchema, routes: Route[]) {
    this.cache = new ReadCache(config.readCache, signals);
    for (const route of routes) {
      const personal = route.kind === "operation" ? route.cache?.personal : undefined;
      if (!personal) continue;
      const document = parse(personal.document);
      const errors = validate(schema, document);
      if (errors.length > 0)
        throw new Error(`route ${route.operationId}: invalid overlay document: ${errors[0]!.message}`);
      this.overlays.set(route, document);
    }
  }

  async read(
    route: OperationRoute,
    cache: RouteCache,
    variables: Record<string, unknown>,
    /** What absolute URLs in the body are built on (MediaUrls.resolveBase): part of the key. */
    base: string | null,
    execute: Execute,
  ): Promise<CachedRead | RouteResult> {
    if (!this.cache.enabled) {
      this.misses++;
      this.executions++;
      return route.respond(await execute(null, variables));
    }
    const personal = cache.personal;
    let anonymous = variables;
    let isPersonal = false;
    if (personal) {
      anonymous = { ...variables };
      for (const name of personal.variables) {
        if (variables[name] !== null && variables[name] !== undefined) isPersonal = true;
        anonymous[name] = null;
      }
    }
    const key = `${route.operationId}\u0000${base ?? ""}\u0000${JSON.stringify(anonymous)}`;
    const hit = this.cache.get(key);
    if (hit) this.hits++;
    else this.misses++;
    const result = hit ?? (await this.miss(route, cache, key, anonymous, execute));
    if (!isPersonal || !(result instanceof CachedRead)) return result;
    // A viewer's page is derived data like the anonymous one, dropped by the same changes: a
    // repeated personalized read (the same verified proof) costs a lookup too.
    const personalKey = `${key}\u0000${JSON.stringify(personal!.variables.map((name) => variables[name]))}`;
    const cached = this.cache.get(personalKey);
    if (cached) return cached;
    // Only an overlay of the stored anonymous body may be stored: a body that was never stored
    // may predate a change.
    const since = this.cache.get(key) === result ? this.cache.generation(result.scope) : null;
    const data = await execute(this.overlays.get(route)!, personal!.overlayVariables(variables, result.value));
    const body = personal!.overlay(result.value, data);
    if (since === null) return body === result.value ? result : { status: 200, body };
    return this.cache.set(personalKey, result.scope, body, since, body === result.value ? result.body : null);
  }

  /** Scopes are read from the variables siteId and pageSlug. */
  private miss(
    route: OperationRoute,
    cache: RouteCache,
    key: string,
    variables: Record<string, unknown>,
    execute: Execute,
  ): Promise<CachedRead | RouteResult> {
    const scope: ReadScope = {
      siteId: String(variables.siteId),
      pageSlug: cache.scope === "page" ? String(variables.pageSlug) : cache.scope === "pages" ? ANY_PAGE : null,
    };
    const since = this.cache.generation(scope);
    const running = this.inflight.get(key);
    // Joining a read that started before a change would serve what the change replaced.
    if (running && this.cache.unchangedSince(running.since)) return running.read;
    const read = this.execute(route, key, scope, variables, execute, since);
    const entry = { since, read };
    this.inflight.set(key, entry);
    const done = () => {
      if (this.inflight.get(key) === entry) this.inflight.delete(key);
    };
    read.then(done, done);
    return read;
  }

  private async execute(
    route: OperationRoute,
    key: string,
    scope: ReadScope,
    variables: Record<string, unknown>,
    execute: Execute,
    since: Generation,
  ): Promise<CachedRead | RouteResult> {
    this.executions++;
    const result = route.respond(await execute(null, variables));
    if (result.status !== 200 || result.headers) return result;
    return this.cache.set(key, scope, result.body, since);
  }
}
