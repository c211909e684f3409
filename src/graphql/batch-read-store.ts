// The rows a GraphQL operation's loaders fetch in batches (src/graphql/context.ts).
import type { Db } from "../db/client.ts";
import type { Reaction, RoomMember } from "../db/client.ts";

/** Current room profiles of (room, user) pairs, as found (missing ones are absent). */
export function roomMembers(db: Db, pairs: [roomId: string, userId: string][]): Promise<RoomMember[]> {
  return db.roomMember.findMany({ where: { OR: pairs.map(([roomId, userId]) => ({ roomId, userId })) } });
}

/** Reactions in force on these comment events. */
export function reactionsOn(db: Db, eventIds: string[]): Promise<Reaction[]> {
  return db.reaction.findMany({ where: { targetEventId: { in: eventIds } } });
}
