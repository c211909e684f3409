// The rows a GraphQL operation's loaders fetch in batches (src/graphql/context.ts): on the path
// of comment reads, so statements on the driver (src/db/driver-statements.ts), one per batch,
// prepared once per list length.
import type { Db } from "../db/client.ts";
import { driverStatements } from "../db/client.ts";
import type { RoomMember } from "../db/client.ts";
import { asDate } from "../db/driver-statements.ts";

/** Current room profiles of (room, user) pairs, as found (missing ones are absent). */
export async function roomMembers(db: Db, pairs: [roomId: string, userId: string][]): Promise<RoomMember[]> {
  if (pairs.length === 0) return [];
  const where = pairs.map((_, i) => `("roomId" = $${2 * i + 1} AND "userId" = $${2 * i + 2})`).join(" OR ");
  const rows = await driverStatements(db).all<Omit<RoomMember, "updatedAt"> & { updatedAt: string | Date }>(
    `SELECT "roomId", "userId", "membership", "displayName", "avatarUrl", "updatedAt" FROM "RoomMember" WHERE ${where}`,
    pairs.flat(),
  );
  return rows.map((row) => ({ ...row, updatedAt: asDate(row.updatedAt)! }));
}
