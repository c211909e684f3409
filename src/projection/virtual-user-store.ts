// The visitors' virtual users (VirtualUser, registered by the write side): the projection reads
// their keys and names to show who wrote or did something.
import type { Db } from "../db/client.ts";
import type { DriverStatements } from "../db/driver-statements.ts";

const KEY = `SELECT "publicKey" FROM "VirtualUser" WHERE "userId" = $1`;

/** The visitor key of a registered virtual user, or null (on the driver: the write side commits them). */
export async function virtualUserKey(reads: DriverStatements, userId: string): Promise<string | null> {
  return (await reads.all<{ publicKey: string }>(KEY, [userId]))[0]?.publicKey ?? null;
}

export function virtualUsers(
  db: Db,
  userIds: string[],
): Promise<Array<{ userId: string; publicKey: string; displayName: string | null }>> {
  return db.virtualUser.findMany({
    where: { userId: { in: userIds } },
    select: { userId: true, publicKey: true, displayName: true },
  });
}
