// The queries behind projecting Matrix bans into the site's register of bans (SiteBan, the
// moderation feature's), run in the projection's applying transaction.
import type { Tx } from "../db/client.ts";
import { EventType } from "../contract/matrix-vocabulary.ts";

/** The newest stored member event of `userId` in the room (by origin time, then event id). */
export async function newestMemberEventId(tx: Tx, roomId: string, userId: string): Promise<string | null> {
  const newest = await tx.matrixEvent.findFirst({
    where: { roomId, type: EventType.Member, stateKey: userId },
    orderBy: [{ originServerTs: "desc" }, { eventId: "desc" }],
    select: { eventId: true },
  });
  return newest?.eventId ?? null;
}

/** The site whose Space or page room `roomId` is, if any. */
export async function siteOfRoom(tx: Tx, roomId: string): Promise<string | null> {
  const room = await tx.room.findUnique({ where: { roomId }, select: { siteId: true } });
  if (room) return room.siteId;
  return (await tx.site.findUnique({ where: { spaceRoomId: roomId }, select: { id: true } }))?.id ?? null;
}

export async function liftSiteBan(tx: Tx, siteId: string, userId: string): Promise<void> {
  await tx.siteBan.deleteMany({ where: { siteId, userId } });
}

/** Records a ban made in Matrix; a ban the service recorded first (with its end and reason) stays as recorded. */
export async function recordSiteBan(
  tx: Tx,
  ban: { siteId: string; userId: string; reason: string | null; bannedBy: string },
): Promise<void> {
  const publicKey = (await tx.virtualUser.findUnique({ where: { userId: ban.userId }, select: { publicKey: true } }))
    ?.publicKey;
  await tx.siteBan.upsert({
    where: { siteId_userId: { siteId: ban.siteId, userId: ban.userId } },
    create: { ...ban, publicKey: publicKey ?? null, expiresAt: null },
    update: {},
  });
}
