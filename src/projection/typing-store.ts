// Who is typing in a page room now (RoomTyping): the snapshot SSE clients get on connect.
import type { Db } from "../db/client.ts";

export async function setTyping(db: Db, roomId: string, userIds: string[]): Promise<void> {
  await db.roomTyping.upsert({
    where: { roomId },
    create: { roomId, userIds: JSON.stringify(userIds) },
    update: { userIds: JSON.stringify(userIds) },
  });
}

export async function typingUserIds(db: Db, roomId: string): Promise<string[]> {
  const typing = await db.roomTyping.findUnique({ where: { roomId } });
  return typing ? (JSON.parse(typing.userIds) as string[]) : [];
}
