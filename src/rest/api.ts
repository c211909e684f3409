// The REST adapter: derives request handling from the route table and runs each route's
// GraphQL operation in-process against the shared schema.
import { bearerToken } from "../security/bearer.ts";
import type { ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  execute,
  parse,
  subscribe,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Config } from "../config/config.ts";
import type { SharedRateLimitStore } from "../cluster/shared-rate-limits.ts";
import type { ClusterSignals } from "../cluster/signals.ts";
import { createContext, type CheckedSite, type ContextServices, type GraphQLContext } from "../graphql/context.ts";
import { DomainError, forbidden, rateLimited, validationError, type FieldError } from "../core/errors.ts";
import type { IdempotencyScope, RequestHead, RequestInfo } from "../core/request.ts";
import { parseIdempotencyKey, requestFingerprint } from "../security/idempotency.ts";
import { secretsEqual } from "../security/secret-equal.ts";
import { PROBLEM_CONTENT_TYPE, toProblem, type Problem } from "./problem.ts";
import type { GraphQLData, Route, RouteInput, RouteResult, RouteServices } from "./route.ts";
import { Router } from "./router.ts";
import { checkRouteOperation } from "./route-checks.ts";
import { parseJsonBody } from "./json-body.ts";
import { throwFirstError } from "./graphql-errors.ts";
import { UploadSlots } from "./upload-slots.ts";
import { ReadBodies } from "./read-bodies.ts";
import { badlyEncodedPart } from "./request-target.ts";
import { preAuthBudgets } from "./rate-limits.ts";
import { buildLimiters, SSE_STREAMS_RETRY_AFTER_SECONDS, type Limiter, type RateLimitName } from "../config/limits.ts";
import { SseWriter, sseMessage } from "../sse/sse-writer.ts";
import { SharedFeeds, type FeedClient, type Frame } from "../sse/shared-feed.ts";
import { CachedReads } from "./cached-reads.ts";
import { CachedRead } from "./read-cache.ts";

const CORS_ALLOW_HEADERS =
  "Content-Type, Idempotency-Key, X-Service-Timestamp, X-Service-Signature, X-Service-Claim-Token, Last-Event-ID, Authorization";
const CORS_EXPOSE_HEADERS = "Idempotent-Replayed, Retry-After, Accept-Query";

/** What the adapter needs from the rest of the service (the composition root provides it). */
export interface RestServices {
  config: Config;
  signals: ClusterSignals;
  log: (message: string) => void;
  /** What operations' resolvers get as ctx.services, and binary routes answer from. */
  operations: ContextServices & RouteServices;
  /** Claim routes' gate (Sites.requireClaim): throws unless the claim token is the site's. */
  requireClaim(siteId: string, token: string | undefined): Promise<unknown>;
  /** Site-write routes' gate (SiteWriteAuth.require): throws unless the request may write to the site. */
  requireSiteWrite(siteId: string, pageSlug: string | undefined, request: RequestInfo): Promise<CheckedSite>;
  /** What media proxy URLs in a request's answers are absolute against (MediaUrls.resolveBase). */
  mediaBase(request: RequestInfo | null): string | null;
  /** The budgets' shared store (PostgreSQL): null when each instance counts alone (SQLite). */
  sharedRateLimits?: SharedRateLimitStore | null;
}

/**
 * What a request's operations share (a personalized read runs two): its GraphQL context is made
 * once, on first use. A record rather than closures: closures made per request each cost a name
 * definition under tsx.
 */
interface OperationRun {
  prepared: Prepared;
  request: RequestInfo;
  mediaBase: string | null;
  idempotency: IdempotencyScope | null;
  checkedSite: CheckedSite | null;
  context: GraphQLContext | null;
}

interface Prepared {
  route: Route;
  document: DocumentNode | null;
  /** A cacheable read's document compiled once (graphql-jit); null elsewhere and where jit cannot compile. */
  compiled: CompiledQuery | null;
  validateBody: ValidateFunction | null;
  validateParams: ValidateFunction | null;
  validateQuery: ValidateFunction | null;
  /** The budgets spent before the body is read (preAuthBudgets), in their order. */
  budgets: readonly RateLimitName[];
}

// A property of the response rather than a WeakMap entry: one per request, and weak-map entries cost the garbage collector more.
const ROUTE_ID = Symbol("routeId");
type RoutedResponse = ServerResponse & { [ROUTE_ID]?: string };
/** The route-table entry (operationId) a response answers, once routed (logs and metrics). */
export const routeIdOf = (res: ServerResponse): string | undefined => (res as RoutedResponse)[ROUTE_ID];

/** The reconnection delay (ms) streams ended by a graceful stop tell their clients. */
export const STOP_RETRY_MS = 500;

export class RestApi {
  private readonly router: Router;
  private readonly prepared = new Map<Route, Prepared>();
  private readonly limiters: Record<RateLimitName, Limiter> | null;
  private openStreams = 0;
  /** How to end each open stream (graceful stop). */
  private readonly streamEnders = new Set<() => void>();
  private readonly uploads = new UploadSlots();
  private readonly readBodies = new ReadBodies();
  /** One subscription per stream (page) shared by its SSE clients. */
  readonly feeds: SharedFeeds;
  /** Public reads whose routes declare `cache`, served from serialized bodies. */
  readonly reads: CachedReads;
  /** Personalized reads' overlay documents (parsed once by CachedReads), compiled on first use. */
  private readonly compiledOverlays = new WeakMap<DocumentNode, CompiledQuery | null>();

  constructor(
    private readonly services: RestServices,
    private readonly schema: GraphQLSchema,
    routes: Route[],
  ) {
    // Without an operator token the operator routes do not exist: their paths are unknown (404).
    const served = services.config.security.operatorToken
      ? routes
      : routes.filter((route) => route.auth !== "operator");
    this.router = new Router(served);
    this.limiters = buildLimiters(services.config.rateLimit, services.sharedRateLimits);
    this.reads = new CachedReads(services.config, services.signals, schema, served);
    this.feeds = new SharedFeeds(services.log);
    const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: true });
    // The one format the route table's inputs declare (the import's `since`): checked as
    // declared, not ignored with a warning at every start.
    addFormats.default(ajv, ["date-time"]);
    for (const route of served) {
      const document = route.kind === "static" || route.kind === "binary" ? null : parse(route.document);
      if (document) {
        const errors = validate(schema, document);
        if (errors.length > 0)
          throw new Error(`route ${route.operationId}: invalid GraphQL document: ${errors[0]!.message}`);
        checkRouteOperation(schema, route, document);
      }
      this.prepared.set(route, {
        route,
        document,
        compiled: document && route.kind === "operation" && route.cache ? compiledRead(this.schema, document) : null,
        validateBody: route.body ? ajv.compile(route.body.schema) : null,
        validateParams: route.params
          ? ajv.compile({ type: "object", properties: route.params, required: Object.keys(route.params) })
          : null,
        validateQuery: route.query
          ? ajv.compile({ type: "object", properties: route.query.properties, required: route.query.required })
          : null,
        budgets: preAuthBudgets(route),
      });
    }
  }

  /** SSE streams open on this instance. */
  get streamCount(): number {
    return this.openStreams;
  }

  /** Ends every open SSE stream with a retry hint (the instance is stopping); returns how many. */
  endStreams(): number {
    const enders = [...this.streamEnders];
    for (const end of enders) end();
    return enders.length;
  }

  /**
   * `readBody` is called only once the request is admitted: a client refused by routing, a rate
   * limit or its credentials never makes the service read (and buffer) its body. It resolves
   * null when it has answered itself (413) or the client is gone.
   */
  async handle(
    res: ServerResponse,
    head: RequestHead,
    readBody: (maxBytes?: number) => Promise<Buffer | null>,
  ): Promise<void> {
    const rawPath = head.target.split("?")[0]!;
    const headers = corsHeaders(head.headers);
    const match = this.router.match(head.method, rawPath);
    const methods = match.kind === "not-found" ? [] : match.allowed;
    if (methods.includes("QUERY")) headers["Accept-Query"] = "application/json";
    try {
      const badPart = badlyEncodedPart(head.target);
      if (badPart) throw validationError("The request target is not validly percent-encoded.", [badPart]);
      if (head.method === "OPTIONS" && methods.length > 0) {
        res.writeHead(204, {
          Allow: [...methods, "OPTIONS"].join(", "),
          "Access-Control-Allow-Methods": [...methods, "OPTIONS"].join(", "),
          "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
          "Access-Control-Max-Age": "600",
          ...headers,
        });
        res.end();
        return;
      }
      if (match.kind === "not-found")
        throw new DomainError("not-found", 404, `No route for ${head.method} ${rawPath}.`);
      if (match.kind === "method-not-allowed") {
        headers.Allow = match.allowed.join(", ");
        const hint =
          match.allowed.includes("QUERY") && head.method === "GET" ? " Use the QUERY method with a JSON body." : "";
        throw new DomainError(
          "method-not-allowed",
          405,
          `${head.method} is not allowed here; allowed: ${match.allowed.join(", ")}.${hint}`,
        );
      }
      const prepared = this.prepared.get(match.route)!;
      (res as RoutedResponse)[ROUTE_ID] = match.route.operationId;
      const admitting = this.admit(prepared, head);
      if (admitting !== undefined) await admitting;
      // The claim token needs no body, so a wrong one is refused before the body is read.
      if (prepared.route.auth === "claim")
        await this.services.requireClaim(match.params.site_id!, head.headers["x-service-claim-token"]);
      // Parameters are checked before the body is read: a raw body's cap may depend on them.
      const target = this.readTarget(prepared, match.params, head);
      if (prepared.route.rawBody) {
        // Held until the response is done: the upload's bytes are in memory until then.
        res.once("close", this.uploads.take(head.clientIp));
        await prepared.route.rawBody.admit?.({ headers: head.headers, ...target }, this.services.operations);
      }
      const rawBody = await readBody(prepared.route.rawBody?.maxBytes(target.query, this.services.config));
      if (!rawBody) return;
      const request: RequestInfo = { rawBody, ...head };
      const input: RouteInput = { body: this.readJsonBody(prepared, request), headers: request.headers, ...target };
      // Site write auth may be HMAC over the body hash: after the body.
      const checkedSite =
        prepared.route.auth === "site-write"
          ? await this.services.requireSiteWrite(input.params.site_id!, input.params.page_slug, request)
          : null;
      const spending = this.spend(prepared.route.postAuthRateLimit, request);
      if (spending !== undefined) await spending;
      const idempotency = prepared.route.idempotencyKey
        ? this.idempotencyScope(prepared.route, request, input.query)
        : null;
      if (prepared.route.kind === "stream") {
        await this.stream(prepared, input, request, res, headers);
        return;
      }
      if (prepared.route.kind === "binary") {
        const result = await prepared.route.respond(input, this.services.operations, this.services.mediaBase(request));
        if (result.body === null)
          send(res, result.status ?? 200, Object.assign({}, headers, result.headers), undefined);
        else await sendStream(res, Object.assign({}, headers, result.headers), result.body);
        return;
      }
      const result =
        prepared.route.kind === "static"
          ? prepared.route.respond()
          : await this.run(prepared, input, request, idempotency, checkedSite);
      if (result instanceof CachedRead) sendCached(res, headers, result);
      else send(res, result.status, Object.assign({}, headers, result.headers), result.body);
    } catch (err) {
      this.sendProblem(res, err, headers, rawPath);
    }
  }

  /**
   * Pre-auth rate limits (for claim routes the claim-token bucket, which missing, invalid and
   * valid tokens alike spend) and operator auth: before the body is read, so refused requests
   * cost little.
   */
  private admit(prepared: Prepared, request: RequestHead, from = 0): Promise<void> | undefined {
    for (let i = from; i < prepared.budgets.length; i++) {
      const spending = this.spend(prepared.budgets[i], request);
      // The next budget is spent only once this one is known not to be exhausted.
      if (spending !== undefined) return spending.then(() => this.admit(prepared, request, i + 1));
    }
    if (prepared.route.auth === "operator") requireOperator(this.services.config.security.operatorToken, request);
    return undefined;
  }

  /**
   * One unit of the client's budget; 429 with the budget's fixed Retry-After when it is spent. A
   * promise only where the budget's store answers asynchronously (shared budgets): an in-process
   * budget costs no turn of the event loop. Public for what spends a route's budget outside the
   * route table (an anonymous /graphql sign-in spends the REST sign-in's).
   */
  spend(name: RateLimitName | undefined, request: RequestHead): Promise<void> | undefined {
    const limiter = name && this.limiters?.[name];
    if (!limiter) return undefined;
    const taken = limiter.take(request.clientIp, Date.now());
    if (taken === true) return undefined;
    if (taken === false) throw rateLimited(limiter.retryAfterSeconds);
    return taken.then((ok) => {
      if (!ok) throw rateLimited(limiter.retryAfterSeconds);
    });
  }

  private readTarget(
    prepared: Prepared,
    params: Record<string, string>,
    request: RequestHead,
  ): Pick<RouteInput, "params" | "query"> {
    if (prepared.validateParams && !prepared.validateParams(params)) {
      throw validationError("Invalid path parameters.", fieldErrors(prepared.validateParams));
    }
    // Only declared query parameters reach the operation.
    const search = request.target.indexOf("?");
    const sent = search < 0 ? {} : Object.fromEntries(new URLSearchParams(request.target.slice(search + 1)));
    const query = Object.fromEntries(Object.entries(sent).filter(([name]) => prepared.route.query?.properties[name]));
    if (prepared.validateQuery && !prepared.validateQuery(query))
      throw validationError("Invalid query parameters.", fieldErrors(prepared.validateQuery));
    return { params, query };
  }

  /** The JSON body (a raw body reaches the operation as `request.rawBody` only). */
  private readJsonBody(prepared: Prepared, request: RequestInfo): Record<string, unknown> {
    const { route } = prepared;
    if (!route.body) return {};
    let body: Record<string, unknown> = {};
    let remembered: string | null = null;
    if (request.rawBody.length === 0) {
      if (!route.body.optional) throw validationError("A JSON request body is required.");
    } else {
      const type = request.headers["content-type"] ?? "application/json";
      if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
        throw new DomainError("unsupported-media-type", 415, "The request body must be application/json.");
      }
      // A cacheable read's body accepted before, byte for byte, is taken as it was.
      remembered =
        route.kind === "operation" && route.cache ? this.readBodies.key(route.operationId, request.rawBody) : null;
      const known = remembered === null ? undefined : this.readBodies.get(remembered);
      if (known) return known;
      const parsed = parseJsonBody(request.rawBody);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw validationError("The request body must be a JSON object.");
      body = parsed as Record<string, unknown>;
    }
    if (!prepared.validateBody!(body))
      throw validationError("The request body is invalid.", fieldErrors(prepared.validateBody!));
    if (remembered !== null) this.readBodies.remember(remembered, body);
    return body;
  }

  /**
   * A JSON write's fingerprint covers the target as sent; a raw upload's covers the path and
   * the query parameters its route names (its proof parameters change on every retry).
   */
  private idempotencyScope(route: Route, request: RequestInfo, query: Record<string, string>): IdempotencyScope {
    const header = request.headers["idempotency-key"];
    if (header === undefined)
      throw new DomainError("idempotency-key-required", 400, "This request needs an Idempotency-Key header.");
    const key = parseIdempotencyKey(header);
    if (key === null)
      throw new DomainError("invalid-idempotency-key", 400, "Idempotency-Key must be 1-255 visible ASCII characters.");
    const fingerprint = route.rawBody
      ? requestFingerprint(
          request.method,
          request.target.split("?")[0]!,
          request.rawBody,
          route.rawBody.fingerprintQuery.map((name) => `${name}=${JSON.stringify(query[name] ?? null)}`),
        )
      : requestFingerprint(request.method, request.target, request.rawBody);
    return { key, fingerprint };
  }

  private async run(
    prepared: Prepared,
    input: RouteInput,
    request: RequestInfo,
    idempotency: IdempotencyScope | null,
    checkedSite: CheckedSite | null,
  ): Promise<RouteResult | CachedRead> {
    const route = prepared.route as Extract<Route, { kind: "operation" }>;
    const mediaBase = this.services.mediaBase(request);
    const run: OperationRun = { prepared, request, mediaBase, idempotency, checkedSite, context: null };
    const variables = route.variables(input);
    if (route.cache)
      return this.reads.read(route, route.cache, variables, mediaBase, (document, values) =>
        this.runOperation(run, document, values),
      );
    return route.respond(await this.runOperation(run, null, variables));
  }

  /** Runs a GraphQL document (null: the route's own) for a request; resolves its data or throws its first error. */
  private async runOperation(
    run: OperationRun,
    document: DocumentNode | null,
    variableValues: Record<string, unknown>,
  ): Promise<GraphQLData> {
    const compiled = document ? this.compiledOverlay(document) : run.prepared.compiled;
    run.context ??= createContext(
      this.services.operations,
      run.request,
      run.mediaBase,
      run.idempotency,
      run.checkedSite,
    );
    let result = compiled ? await compiled.query(undefined, run.context, variableValues) : null;
    // An error is answered as graphql-js words and shapes it (a read has no side effects to repeat).
    if (!result || result.errors?.length)
      result = await execute({
        schema: this.schema,
        document: document ?? run.prepared.document!,
        variableValues,
        contextValue: run.context,
      });
    throwFirstError(result);
    return result.data ?? {};
  }

  private compiledOverlay(document: DocumentNode): CompiledQuery | null {
    let compiled = this.compiledOverlays.get(document);
    if (compiled === undefined) this.compiledOverlays.set(document, (compiled = compiledRead(this.schema, document)));
    return compiled;
  }

  /**
   * An SSE client of a stream route: it reads its own snapshot and resume gap (a subscription
   * that ends at the shared feed's position), then gets the frames of the one subscription
   * this instance runs for all clients of the same stream (src/sse/shared-feed.ts).
   */
  private async stream(
    prepared: Prepared,
    input: RouteInput,
    request: RequestInfo,
    res: ServerResponse,
    headers: Record<string, string>,
  ): Promise<void> {
    const route = prepared.route as Extract<Route, { kind: "stream" }>;
    const { [route.resume.after]: after, ...shared } = route.variables(input);
    const resumeAfter = typeof after === "number" ? after : null;
    const maxUnsent = this.services.config.live.maxUnsentBytes;
    // The slot is checked and taken in one synchronous step, so concurrent connects cannot
    // overshoot the cap.
    if (this.openStreams >= this.services.config.rateLimit.sseMaxStreams) {
      throw new DomainError("rate-limited", 429, "This instance has too many open event streams; retry later.", {
        headers: { "Retry-After": String(SSE_STREAMS_RETRY_AFTER_SECONDS) },
      });
    }
    this.openStreams++;
    let client: FeedClient | null = null;
    let catchUp: AsyncIterator<Frame> | null = null;
    let writer: SseWriter | null = null;
    let open = true;
    // Everything the stream holds is freed at once: when its client goes away (the response
    // closes; the request itself closed long ago, once its body was read), possibly while the
    // stream is still opening, and on every other way out.
    const free = () => {
      if (!open) return;
      open = false;
      this.openStreams--;
      this.streamEnders.delete(end);
      res.off("close", free);
      client?.close();
      writer?.close();
      void catchUp?.return?.();
    };
    // On a graceful stop: a retry hint, then the end; the client reconnects (with Last-Event-ID)
    // to another instance.
    const end = () => {
      if (writer) {
        writer.writeRaw(Buffer.from(`retry: ${STOP_RETRY_MS}\n\n`));
        writer.close();
      } else res.destroy();
      free();
    };
    this.streamEnders.add(end);
    res.once("close", free);
    try {
      // Frames carry absolute media URLs: clients reaching the service under one base URL share a feed.
      const base = this.services.mediaBase(request);
      const joined = await this.feeds.join(
        `${route.operationId}\u0000${base ?? ""}\u0000${JSON.stringify(shared)}`,
        () => this.frames(prepared, { [route.resume.after]: null, ...shared }, null, base),
        resumeAfter ?? 0,
        maxUnsent,
        () => (writer ? writer.close() : res.destroy()),
      );
      client = joined.client;
      const until = joined.position;
      if (!open) {
        client.close();
        return;
      }
      catchUp = await this.frames(
        prepared,
        Object.assign({}, shared, { [route.resume.after]: resumeAfter ?? until, [route.resume.until]: until }),
        request,
        base,
      );
      if (!open) return;
      writer = new SseWriter(res, headers, maxUnsent);
      for (let next = await catchUp.next(); !next.done && open; next = await catchUp.next()) {
        writer.writeRaw(next.value.bytes);
        if (res.writableNeedDrain) await drained(res);
      }
      // Only the feed holds the client from here on; its own subscription is let go.
      catchUp = null;
      if (open) client.live(writer);
    } catch (err) {
      free();
      throw err;
    }
  }

  /**
   * A subscription's results as serialized SSE messages; `request` null for a shared feed, which
   * outlives any one request, so the base URL of its media URLs is given.
   */
  private async frames(
    prepared: Prepared,
    variableValues: Record<string, unknown>,
    request: RequestInfo | null,
    mediaBase: string | null,
  ): Promise<AsyncIterator<Frame>> {
    const route = prepared.route as Extract<Route, { kind: "stream" }>;
    const contextValue = createContext(this.services.operations, request, mediaBase);
    const result = await subscribe({ schema: this.schema, document: prepared.document!, variableValues, contextValue });
    if (!(Symbol.asyncIterator in result)) {
      throwFirstError(result);
      throw new Error("subscription returned no stream");
    }
    const results = result as AsyncGenerator<ExecutionResult>;
    const log = this.services.log;
    // A plain iterator, not a generator: return() must reach the subscription at once, even
    // while a next() waits for an event.
    return {
      async next() {
        for (;;) {
          const item = await results.next();
          if (item.done) return { done: true, value: undefined };
          if (item.value.errors?.length) {
            log(`sse: ${item.value.errors[0]!.message}`);
            continue;
          }
          const frame = route.frame(item.value.data ?? {});
          return { done: false, value: { id: Number(frame.id), bytes: Buffer.from(sseMessage(frame.id, frame.data)) } };
        }
      },
      async return() {
        await results.return(undefined);
        return { done: true, value: undefined };
      },
    };
  }

  private sendProblem(res: ServerResponse, err: unknown, headers: Record<string, string>, instance: string): void {
    const mapped = toProblem(err, instance);
    if (mapped.unexpected) this.services.log(`error on ${instance}: ${(err as Error)?.stack ?? String(err)}`);
    if (res.headersSent) {
      res.end();
      return;
    }
    sendProblem(res, mapped.problem, Object.assign({}, headers, mapped.headers));
  }
}

/**
 * A read's query compiled once with graphql-jit; null (graphql's execute) for what jit cannot
 * compile. Built-in scalars and enums are taken as the resolvers return them, not serialized one
 * by one (nulls in non-null fields are still errors): the resolvers and the stores behind them
 * return the wire types, and the suite checks every response against its declared schema.
 */
function compiledRead(schema: GraphQLSchema, document: DocumentNode): CompiledQuery | null {
  const operation = document.definitions.find((definition) => definition.kind === "OperationDefinition");
  if (operation?.operation !== "query") return null;
  const compiled = compileQuery(schema, document, undefined, { disableLeafSerialization: true });
  return isCompiledQuery(compiled) ? compiled : null;
}

/** CORS response headers for a request's Origin (echoed; no credentials). */
export function corsHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const origin = headers.origin;
  return origin
    ? { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": CORS_EXPOSE_HEADERS, Vary: "Origin" }
    : {};
}

export function requireOperator(token: string | null, request: RequestHead): void {
  const presented = bearerToken(request.headers.authorization);
  const ok = token !== null && presented !== null && secretsEqual(presented, token);
  if (!ok) throw forbidden("invalid-operator-token", "A valid operator token is required (Authorization: Bearer …).");
}

function fieldErrors(validate: ValidateFunction): FieldError[] {
  return (validate.errors ?? []).map((e) => {
    const path = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
    const field =
      e.keyword === "required"
        ? (e.params as { missingProperty: string }).missingProperty
        : e.keyword === "additionalProperties"
          ? (e.params as { additionalProperty: string }).additionalProperty
          : path || "(body)";
    const message =
      e.keyword === "additionalProperties"
        ? "is not a known field"
        : e.keyword === "required"
          ? "is required"
          : (e.message ?? "is invalid");
    return { field, message };
  });
}

/** Resolves once the response has room again, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/** JSON is never to be sniffed as anything else. */
const SAFE = { "X-Content-Type-Options": "nosniff" };

export function send(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const json = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(json),
    ...headers,
    ...SAFE,
  });
  res.end(json);
}

/**
 * A 200 streamed from `body`. A body that fails midway (or a client that goes away) resets the
 * connection: ending the response normally would pass a truncated body off as complete.
 */
async function sendStream(res: ServerResponse, headers: Record<string, string>, body: Readable): Promise<void> {
  res.writeHead(200, headers);
  try {
    await pipeline(body, res);
  } catch {
    res.destroy();
  }
}

/** A cached read's stored body, as is. */
function sendCached(res: ServerResponse, headers: Record<string, string>, read: CachedRead): void {
  res.writeHead(200, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": read.contentLength,
    ...headers,
    ...SAFE,
  });
  res.end(read.body);
}

export function sendProblem(res: ServerResponse, body: Problem, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  res.writeHead(body.status, {
    "Content-Type": PROBLEM_CONTENT_TYPE,
    "Content-Length": Buffer.byteLength(json),
    ...headers,
    ...SAFE,
  });
  res.end(json);
}
