// The visitors' virtual users (VirtualUser, registered by the write side): the projection reads
// their keys and names to show who wrote or did something.
import type { Db, Tx } from "../db/client.ts";

/** The visitor key of a registered virtual user, or null. */
export async function virtualUserKey(tx: Tx, userId: string): Promise<string | null> {
  return (await tx.virtualUser.findUnique({ where: { userId }, select: { publicKey: true } }))?.publicKey ?? null;
}

export function virtualUsers(db: Db, userIds: string[]): Promise<Array<{ userId: string; publicKey: string; displayName: string | null }>> {
  return db.virtualUser.findMany({ where: { userId: { in: userIds } }, select: { userId: true, publicKey: true, displayName: true } });
}
