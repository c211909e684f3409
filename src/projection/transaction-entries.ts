// The entries of an appservice transaction, checked one by one: one the projection could not
// even store or apply (not an object, nested beyond what can be serialized, ephemeral data of
// the wrong shape) is set aside to be recorded, so it never fails the whole transaction, which
// the homeserver would then retry forever while projection stalls.
import type { RoomEvent } from "./room-event.ts";
import type { EphemeralEvent } from "./ephemeral.ts";
import { EventType } from "../contract/matrix-vocabulary.ts";

/**
 * Nesting a pushed entry may have. Far beyond any real event (homeservers parse recursively too),
 * far below what JSON.stringify and the projection's own walks survive.
 */
export const MAX_ENTRY_DEPTH = 512;

export interface RejectedEntry {
  /** The event id, or the entry's place in the transaction ("<txn>/ephemeral/3"). */
  key: string;
  roomId: string | null;
  type: string | null;
  reason: string;
}

export interface TransactionEntries {
  events: RoomEvent[];
  ephemeral: EphemeralEvent[];
  rejected: RejectedEntry[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** Whether `value` nests deeper than `max` levels; iterative, so any depth is measured safely. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== "object" || item === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

function roomEventProblem(entry: unknown): string | null {
  if (!isObject(entry)) return "not an event object";
  if (typeof entry.event_id !== "string" || typeof entry.room_id !== "string")
    return "event_id or room_id is not a string";
  return nestsDeeperThan(entry, MAX_ENTRY_DEPTH) ? `nested deeper than ${MAX_ENTRY_DEPTH} levels` : null;
}

/** The shapes EphemeralProjector reads: typing's user_ids list, receipts' event → type → user map. */
function ephemeralProblem(entry: unknown): string | null {
  if (!isObject(entry) || typeof entry.type !== "string") return "not an ephemeral event object with a type";
  if (entry.room_id !== undefined && typeof entry.room_id !== "string") return "room_id is not a string";
  if (entry.content !== undefined && !isObject(entry.content)) return "content is not an object";
  if (nestsDeeperThan(entry, MAX_ENTRY_DEPTH)) return `nested deeper than ${MAX_ENTRY_DEPTH} levels`;
  const content = entry.content ?? {};
  if (entry.type === EventType.Presence && typeof entry.sender !== "string") return "m.presence sender is not a string";
  if (entry.type === EventType.Typing && content.user_ids !== undefined && !Array.isArray(content.user_ids))
    return "m.typing user_ids is not a list";
  if (
    entry.type === EventType.Receipt &&
    !Object.values(content).every((byType) => isObject(byType) && Object.values(byType).every(isObject))
  ) {
    return "m.receipt content is not a map of event ids to receipt types to users";
  }
  return null;
}

/** Sorts a parsed transaction body's entries into those to apply and those to record. */
export function transactionEntries(txnId: string, body: unknown): TransactionEntries {
  const txn = isObject(body) ? body : {};
  const pushed = txn.ephemeral ?? txn["de.sorunome.msc2409.ephemeral"];
  const result: TransactionEntries = { events: [], ephemeral: [], rejected: [] };
  const sort = <T>(
    section: "events" | "ephemeral",
    list: unknown,
    problemOf: (entry: unknown) => string | null,
    keep: T[],
  ) => {
    (Array.isArray(list) ? list : []).forEach((entry, i) => {
      const reason = problemOf(entry);
      if (reason === null) {
        keep.push(entry as T);
        return;
      }
      const fields = isObject(entry) ? entry : {};
      const eventId = section === "events" ? text(fields.event_id) : null;
      result.rejected.push({
        key: eventId ?? `${txnId}/${section}/${i}`,
        roomId: text(fields.room_id),
        type: text(fields.type),
        reason: `${section} entry: ${reason}`,
      });
    });
  };
  sort("events", txn.events, roomEventProblem, result.events);
  sort("ephemeral", pushed, ephemeralProblem, result.ephemeral);
  return result;
}
