// What every GraphQL operation runs with: the services, and the HTTP request behind it when
// it came through the REST adapter.
import DataLoader from "dataloader";
import type { Db } from "../db/client.ts";
import type { IdempotencyScope, RequestInfo } from "../core/request.ts";
import type { Membership } from "../projection/member-store.ts";
import { roomMembers } from "./batch-read-store.ts";

/**
 * What resolvers reach as `ctx.services`. Declared here is what shared code uses; each feature
 * (and the write pipeline) adds its services by augmenting this interface where its resolvers
 * are (`declare module "…/graphql/context.ts"`), and the composition root provides them all.
 */
export interface ContextServices {
  /** The Prisma plugin's client (src/graphql/builder.ts), and the loaders'. */
  db: Db;
}

/** A site the route adapter's site-write gate loaded and passed for a request: later stages need not load it again. */
export interface CheckedSite {
  site: { id: string };
  pageSlug: string | undefined;
}

/**
 * The credentials a caller presented (dashboards and the operator): what the dashboard feature's
 * access checks read. The REST adapter's operations take them from their request; /graphql sets
 * them explicitly (its operations have no RequestInfo).
 */
export interface Credentials {
  /** The Authorization header as sent. */
  authorization: string | undefined;
  /** The Cookie header as sent. */
  cookie: string | undefined;
}

export interface GraphQLContext {
  services: ContextServices;
  request: RequestInfo | null;
  credentials: Credentials | null;
  idempotency: IdempotencyScope | null;
  /** Current room profiles, batched per operation: key `${roomId}\0${userId}`. */
  profiles: DataLoader<string, Membership | null>;
  /** The site the route adapter's site-write gate already loaded and passed for this request. */
  checkedSite: CheckedSite | null;
  /**
   * What media proxy URLs are absolute against (MediaUrls.resolveBase of the request: also the
   * SSE stream's request); null: API-relative.
   */
  mediaBase: string | null;
}

export function createContext(
  services: ContextServices,
  request: RequestInfo | null,
  mediaBase: string | null,
  idempotency: IdempotencyScope | null = null,
  checkedSite: CheckedSite | null = null,
  credentials: Credentials | null = request
    ? { authorization: request.headers.authorization, cookie: request.headers.cookie }
    : null,
): GraphQLContext {
  // Loaders batch only: a subscription keeps its context for the life of an SSE stream and must see renames and new reactions.
  const loading = { cache: false };
  const profiles = new DataLoader<string, Membership | null>(async (keys) => {
    const rows = await roomMembers(
      services.db,
      keys.map((k) => k.split("\u0000") as [string, string]),
    );
    const byKey = new Map(rows.map((r) => [`${r.roomId}\u0000${r.userId}`, r]));
    return keys.map((k) => byKey.get(k) ?? null);
  }, loading);
  return { services, request, credentials, idempotency, checkedSite, profiles, mediaBase };
}
