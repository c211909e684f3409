// Room state the API shows (RoomState: the state kinds event-kinds.ts projects), for page rooms
// and Spaces. Order-independent: the newest (origin_server_ts, event_id) wins.
import type { Db, Tx } from "../db/client.ts";
import type { RoomEvent } from "./room-event.ts";

/** Makes the state event its room's current state of its kind, unless a newer one is. */
export async function applyRoomState(db: Db | Tx, event: RoomEvent): Promise<void> {
  const key = { roomId: event.room_id, type: event.type, stateKey: event.state_key ?? "" };
  const ts = BigInt(Math.trunc(event.origin_server_ts ?? 0));
  const current = await db.roomState.findUnique({ where: { roomId_type_stateKey: key } });
  if (current && (current.originServerTs > ts || (current.originServerTs === ts && current.eventId >= event.event_id)))
    return;
  const data = { eventId: event.event_id, originServerTs: ts, content: JSON.stringify(event.content ?? {}) };
  await db.roomState.upsert({ where: { roomId_type_stateKey: key }, create: { ...key, ...data }, update: data });
}
