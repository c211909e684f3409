// What every GraphQL operation runs with: the services, and the HTTP request behind it when
// it came through the REST adapter.
import DataLoader from "dataloader";
import type { Services } from "../server/services.ts";
import type { IdempotencyScope, RequestInfo } from "../domain/request.ts";

export interface Profile {
  displayName: string | null;
  avatarUrl: string | null;
  membership: string;
}

export interface GraphQLContext {
  services: Services;
  request: RequestInfo | null;
  idempotency: IdempotencyScope | null;
  /** Current room profiles, batched per operation: key `${roomId}\0${userId}`. */
  profiles: DataLoader<string, Profile | null>;
}

export function createContext(services: Services, request: RequestInfo | null, idempotency: IdempotencyScope | null = null): GraphQLContext {
  const profiles = new DataLoader<string, Profile | null>(async (keys) => {
    const pairs = keys.map((k) => k.split("\u0000") as [string, string]);
    const rows = await services.db.roomMember.findMany({
      where: { OR: pairs.map(([roomId, userId]) => ({ roomId, userId })) },
    });
    const byKey = new Map(rows.map((r) => [`${r.roomId}\u0000${r.userId}`, r]));
    return keys.map((k) => byKey.get(k) ?? null);
  });
  return { services, request, idempotency, profiles };
}
