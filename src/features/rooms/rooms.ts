// Public reads of a page's room and of role rosters, all from the projected read model: room
// info from RoomState, RoomMember and the MatrixEvent store; rosters from power levels.
import type { Db } from "../../db/client.ts";
import { RoomStore } from "./room-store.ts";
import type { MatrixNames } from "../../matrix/names.ts";
import { notFound } from "../../core/errors.ts";
import { deriveRosters, EMPTY_ROSTERS, inServiceNamespace, type Rosters } from "./roles.ts";
import type { Sites } from "../sites/sites.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

/** Room info carries the most recent system messages only, oldest first. */
export const SYSTEM_MESSAGE_LIMIT = 100;
const SYSTEM_MESSAGE_TYPES = [EventType.Member, EventType.Name, EventType.Topic, EventType.Avatar];

export interface RoomReadDeps {
  /** For the room store (src/features/rooms/room-store.ts). */
  db: Db;
  sites: Sites;
  names: MatrixNames;
}

export interface SystemMessage {
  eventId: string;
  eventType: string;
  stateKey: string | null;
  sender: string;
  originServerTs: number;
  content: Record<string, unknown>;
}

export interface RoomInfo {
  roomId: string;
  name: string | null;
  topic: string | null;
  avatarUrl: string | null;
  memberCount: number;
  systemMessages: SystemMessage[];
}

export interface PageRoster extends Rosters {
  siteId: string;
  pageSlug: string;
  roomId: string;
}

export async function roomInfo(deps: RoomReadDeps, siteId: string, pageSlug: string): Promise<RoomInfo> {
  const rooms = new RoomStore(deps.db);
  const roomId = await activeRoomId(deps, rooms, siteId, pageSlug);
  const [state, memberCount, events] = await Promise.all([
    currentState(rooms, roomId, [EventType.Name, EventType.Topic, EventType.Avatar]),
    rooms.joinedCount(roomId, deps.names.botUserId),
    rooms.latestEvents(roomId, SYSTEM_MESSAGE_TYPES, SYSTEM_MESSAGE_LIMIT),
  ]);
  return {
    roomId,
    name: text(state.get(EventType.Name), "name"),
    topic: text(state.get(EventType.Topic), "topic"),
    avatarUrl: text(state.get(EventType.Avatar), "url"),
    memberCount,
    systemMessages: events.reverse().map((e) => ({
      eventId: e.eventId,
      eventType: e.type,
      stateKey: e.stateKey,
      sender: e.sender,
      originServerTs: Number(e.originServerTs),
      content: contentOf(e.json),
    })),
  };
}

/** The page room's rosters, from its power levels. */
export async function pageRoles(deps: RoomReadDeps, siteId: string, pageSlug: string): Promise<PageRoster> {
  const rooms = new RoomStore(deps.db);
  const roomId = await activeRoomId(deps, rooms, siteId, pageSlug);
  return { siteId, pageSlug, roomId, ...(await rostersOf(deps, rooms, roomId)) };
}

/** The site's rosters, from its Space's power levels: empty until the Space exists. */
export async function siteRoles(deps: RoomReadDeps, siteId: string): Promise<Rosters> {
  await deps.sites.requireReadable(siteId);
  const spaceRoomId = await deps.sites.store.spaceRoomIdOrThrow(siteId);
  return spaceRoomId ? rostersOf(deps, new RoomStore(deps.db), spaceRoomId) : EMPTY_ROSTERS;
}

/** 400 for malformed ids, 404 for an unregistered site or a page without an active room yet. */
async function activeRoomId(deps: RoomReadDeps, rooms: RoomStore, siteId: string, pageSlug: string): Promise<string> {
  await deps.sites.requireReadable(siteId, pageSlug);
  const roomId = await rooms.activeRoomId(siteId, pageSlug);
  if (!roomId) throw notFound("room-not-found", `Page ${siteId}/${pageSlug} has no room yet.`);
  return roomId;
}

async function rostersOf(deps: RoomReadDeps, rooms: RoomStore, roomId: string): Promise<Rosters> {
  const state = await currentState(rooms, roomId, [EventType.PowerLevels]);
  return deriveRosters(state.get(EventType.PowerLevels), inServiceNamespace(deps.names));
}

/** The room's current content of each state type (state key ""). */
async function currentState(rooms: RoomStore, roomId: string, types: string[]): Promise<Map<string, unknown>> {
  const rows = await rooms.currentState([roomId], types);
  return new Map(rows.map((r) => [r.type, JSON.parse(r.content)]));
}

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;

/** Matrix treats an absent, null or empty name (topic, avatar url) as none. */
const text = (value: unknown, key: string): string | null => {
  const v = field(value, key);
  return typeof v === "string" && v !== "" ? v : null;
};

const contentOf = (json: string): Record<string, unknown> => {
  const content = field(JSON.parse(json), "content");
  return typeof content === "object" && content !== null && !Array.isArray(content)
    ? (content as Record<string, unknown>)
    : {};
};
