// Bans made in Matrix, in the site's register of bans (SiteBan, the moderation feature's): a ban
// in the site's Space or one of its page rooms — from Element as from the service's bot — bans
// the user from the site; an unban there lifts it. Only a room's newest member event of the user
// counts, so a replayed or late event never undoes a newer one.
import type { Tx } from "../db/client.ts";
import { obj, str, type RoomEvent } from "./room-event.ts";
import { liftSiteBan, newestMemberEventId, recordSiteBan, siteOfRoom } from "./site-ban-store.ts";

export async function projectSiteBan(tx: Tx, event: RoomEvent): Promise<void> {
  const userId = event.state_key;
  if (userId === undefined) return;
  const membership = str(obj(event.content)?.membership);
  const unban = membership !== "ban" && event.sender !== userId && prevMembership(event) === "ban";
  if (membership !== "ban" && !unban) return;
  const newest = await newestMemberEventId(tx, event.room_id, userId);
  if (newest !== null && newest !== event.event_id) return;
  const siteId = await siteOfRoom(tx, event.room_id);
  if (siteId === null) return;
  if (unban) await liftSiteBan(tx, siteId, userId);
  else await recordSiteBan(tx, { siteId, userId, reason: str(obj(event.content)?.reason), bannedBy: event.sender });
}

const prevMembership = (event: RoomEvent): string | null =>
  str(obj(obj(obj(event.unsigned)?.prev_content))?.membership ?? null);
