// Page room membership and profiles (RoomMember), as members.ts projects them.
import type { Db, Tx } from "../db/client.ts";
import type { RoomMember } from "../db/client.ts";

/** A member's profile as a room shows it. */
export interface Profile {
  displayName: string | null;
  avatarUrl: string | null;
}

/** A RoomMember row's projected columns: what the user's newest member event says. */
export interface Membership extends Profile {
  membership: string;
}

export function memberRow(tx: Tx, roomId: string, userId: string): Promise<RoomMember | null> {
  return tx.roomMember.findUnique({ where: { roomId_userId: { roomId, userId } } });
}

export async function saveMember(tx: Tx, roomId: string, userId: string, membership: Membership): Promise<void> {
  const key = { roomId, userId };
  await tx.roomMember.upsert({ where: { roomId_userId: key }, create: { ...key, ...membership }, update: membership });
}

/** The rooms the user has joined. */
export async function joinedRoomIds(db: Db, userId: string): Promise<string[]> {
  return (await db.roomMember.findMany({ where: { userId, membership: "join" }, select: { roomId: true } })).map(
    (m) => m.roomId,
  );
}

/** The display names the users have in the room (members only). */
export function memberNames(
  db: Db,
  roomId: string,
  userIds: string[],
): Promise<Array<{ userId: string; displayName: string | null }>> {
  return db.roomMember.findMany({
    where: { roomId, userId: { in: userIds } },
    select: { userId: true, displayName: true },
  });
}
