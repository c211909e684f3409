// What every GraphQL operation runs with: the services, and the HTTP request behind it when
// it came through the REST adapter.
import DataLoader from "dataloader";
import type { Services } from "../app/services.ts";
import type { IdempotencyScope, RequestInfo } from "../core/request.ts";
import type { Reaction } from "../db/generated/sqlite/client.ts";
import type { Membership } from "../projection/members.ts";
import type { CheckedSite } from "../features/sites/site-write-auth.ts";

export interface GraphQLContext {
  services: Services;
  request: RequestInfo | null;
  idempotency: IdempotencyScope | null;
  /** Current room profiles, batched per operation: key `${roomId}\0${userId}`. */
  profiles: DataLoader<string, Membership | null>;
  /** Reactions in force per comment event id, batched per operation. */
  reactions: DataLoader<string, Reaction[]>;
  /** The site the route adapter's site-write gate already loaded and passed for this request. */
  checkedSite: CheckedSite | null;
  /** The virtual user of a personalized read's verified viewer (decides `mine`); set by the read. */
  viewerUserId: string | null;
  /**
   * What media proxy URLs are absolute against (MediaUrls.resolveBase of the request: also the
   * SSE stream's request); null: API-relative.
   */
  mediaBase: string | null;
}

/**
 * Loaders batch but do not memoize: a subscription keeps its context for the life of an SSE
 * stream, and must see renames and new reactions.
 */
const BATCH_ONLY = { cache: false } as const;

export function createContext(
  services: Services,
  request: RequestInfo | null,
  idempotency: IdempotencyScope | null = null,
  checkedSite: CheckedSite | null = null,
): GraphQLContext {
  const profiles = new DataLoader<string, Membership | null>(async (keys) => {
    const pairs = keys.map((k) => k.split("\u0000") as [string, string]);
    const rows = await services.db.roomMember.findMany({
      where: { OR: pairs.map(([roomId, userId]) => ({ roomId, userId })) },
    });
    const byKey = new Map(rows.map((r) => [`${r.roomId}\u0000${r.userId}`, r]));
    return keys.map((k) => byKey.get(k) ?? null);
  }, BATCH_ONLY);
  const reactions = new DataLoader<string, Reaction[]>(async (eventIds) => {
    const rows = await services.db.reaction.findMany({ where: { targetEventId: { in: [...eventIds] } } });
    const byTarget = new Map<string, Reaction[]>();
    for (const row of rows) byTarget.set(row.targetEventId, [...(byTarget.get(row.targetEventId) ?? []), row]);
    return eventIds.map((id) => byTarget.get(id) ?? []);
  }, BATCH_ONLY);
  return { services, request, idempotency, checkedSite, profiles, reactions, viewerUserId: null, mediaBase: services.mediaUrls.resolveBase(request) };
}
