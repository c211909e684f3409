// Room state the API shows (name, topic, avatar, power levels, and the sticker packs a site's
// Space holds), projected into RoomState for page rooms and Spaces. Order-independent: the newest
// (origin_server_ts, event_id) wins.
import type { Db, Tx } from "../db/client.ts";
import type { RoomEvent } from "./message-content.ts";

export const ROOM_STATE_TYPES: ReadonlySet<string> = new Set(["m.room.name", "m.room.topic", "m.room.avatar", "m.room.power_levels", "m.room.image_pack"]);

/** Applies one state event; true when it became the room's current state of its kind. */
export async function applyRoomState(db: Db | Tx, event: RoomEvent): Promise<boolean> {
  const key = { roomId: event.room_id, type: event.type, stateKey: event.state_key ?? "" };
  const ts = BigInt(Math.trunc(event.origin_server_ts ?? 0));
  const current = await db.roomState.findUnique({ where: { roomId_type_stateKey: key } });
  if (current && (current.originServerTs > ts || (current.originServerTs === ts && current.eventId >= event.event_id))) return false;
  const data = { eventId: event.event_id, originServerTs: ts, content: JSON.stringify(event.content ?? {}) };
  await db.roomState.upsert({ where: { roomId_type_stateKey: key }, create: { ...key, ...data }, update: data });
  return true;
}
