// Which pushed events are the AS bot's rather than the page projection's. The homeserver pushes
// every event of every room the bot is in; those of DMs (and of group rooms someone added the
// bot to) must neither wait in the page event store for a page room that never comes nor be
// stored there at all (they carry claim tokens, and the bot's own answers the new claim token
// of an ownership transfer).
import type { Db } from "../../../db/client.ts";
import type { RoomEvent } from "../../../projection/room-event.ts";
import { BotInboxStore } from "./bot-inbox-store.ts";
import type { BotInbox } from "./inbox.ts";
import { EventType } from "../../../contract/matrix-vocabulary.ts";

/** handle: queue it for the bot; drop: the bot's, but nothing to do; project: not the bot's. */
export type BotRoute = "handle" | "drop" | "project";

/** Event types of a bot room the bot acts on; the rest of such a room (state, reactions, its own echoes) is dropped. */
const HANDLED_TYPES: ReadonlySet<string> = new Set([EventType.Message, EventType.Encrypted, EventType.Member]);

export const isBotInvite = (event: RoomEvent, botUserId: string): boolean =>
  event.type === EventType.Member && event.state_key === botUserId && event.content?.membership === "invite";

/** `botRoom`: the room is a recorded bot room (see BotRoom). Page rooms and Spaces never are. */
export function routeEvent(event: RoomEvent, botUserId: string, botRoom: boolean): BotRoute {
  // The bot creates page rooms and Spaces itself, so an invite of the bot is never one of theirs.
  if (isBotInvite(event, botUserId)) return "handle";
  if (!botRoom) return "project";
  return event.sender !== botUserId && HANDLED_TYPES.has(event.type) ? "handle" : "drop";
}

export class BotIntake {
  private readonly store: BotInboxStore;

  constructor(
    db: Db,
    private readonly botUserId: string,
    private readonly inbox: BotInbox,
  ) {
    this.store = new BotInboxStore(db);
  }

  /**
   * Takes the bot's events out of a transaction: queues those to handle (durably, before the
   * transaction is acknowledged) and returns true for every event the page projection must skip.
   */
  async take(event: RoomEvent): Promise<boolean> {
    if (typeof event?.event_id !== "string" || typeof event.room_id !== "string") return false;
    const botRoom = isBotInvite(event, this.botUserId) || (await this.store.isBotRoom(event.room_id));
    const route = routeEvent(event, this.botUserId, botRoom);
    if (route === "handle") await this.inbox.add(event);
    return route !== "project";
  }
}
