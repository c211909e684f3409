// Whether a redaction takes effect on its target (pure): its sender's own events, the AS bot,
// or anyone holding the room's `redact` power level.
import { obj, type RoomEvent } from "./room-event.ts";

/** A power level: an integer, or (in old rooms) an integer string. */
function level(value: unknown): number | null {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  return typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : null;
}

/**
 * `powerLevels` is the content of the m.room.power_levels in force when the redaction was sent;
 * with none known the homeserver's acceptance of the redaction is trusted.
 */
export function redactionTakesEffect(
  redaction: RoomEvent,
  target: RoomEvent,
  powerLevels: Record<string, unknown> | null,
  botUserId: string,
): boolean {
  if (redaction.room_id !== target.room_id) return false;
  if (redaction.sender === target.sender || redaction.sender === botUserId || powerLevels === null) return true;
  const senderLevel = level(obj(powerLevels.users)?.[redaction.sender]) ?? level(powerLevels.users_default) ?? 0;
  return senderLevel >= (level(powerLevels.redact) ?? 50);
}
