// A room event as the homeserver pushes it, and reading its loosely typed JSON safely.

export interface RoomEvent {
  event_id: string;
  room_id: string;
  sender: string;
  type: string;
  origin_server_ts: number;
  content: Record<string, unknown>;
  state_key?: string;
  unsigned?: Record<string, unknown>;
  /** The redacted event of an m.room.redaction in rooms before v11 (later ones carry it in content). */
  redacts?: string;
}

export const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
export const obj = (v: unknown): Record<string, unknown> | null =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** Timeline order where Matrix gives none: origin_server_ts, then event id. */
export const byTimeline = (a: RoomEvent, b: RoomEvent): number =>
  a.origin_server_ts - b.origin_server_ts || (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0);
