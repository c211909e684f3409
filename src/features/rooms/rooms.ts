// Public reads of a page's room and of role rosters, all from the projected read model: room
// info from RoomState, RoomMember and the MatrixEvent store; rosters from power levels.
import type { Db } from "../../db/client.ts";
import { RoomStore } from "./room-store.ts";
import type { MatrixNames } from "../../matrix/names.ts";
import { notFound } from "../../core/errors.ts";
import { deriveRosters, inServiceNamespace, type Rosters } from "./roles.ts";
import { checkPath, siteNotFound, type Sites } from "../sites/sites.ts";
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
  checkPath(siteId, pageSlug);
  const page = await new RoomStore(deps.db).pagePowerLevels(siteId, pageSlug);
  if (!page) throw siteNotFound(siteId);
  if (!page.roomId) throw roomNotFound(siteId, pageSlug);
  return { siteId, pageSlug, roomId: page.roomId, ...rosters(deps, page.content) };
}

/** The site's rosters, from its Space's power levels: empty until the Space exists. */
export async function siteRoles(deps: RoomReadDeps, siteId: string): Promise<Rosters> {
  checkPath(siteId);
  const space = await new RoomStore(deps.db).spacePowerLevels(siteId);
  if (!space) throw siteNotFound(siteId);
  return rosters(deps, space.content);
}

/** 400 for malformed ids, 404 for an unregistered site or a page without an active room yet. */
async function activeRoomId(deps: RoomReadDeps, rooms: RoomStore, siteId: string, pageSlug: string): Promise<string> {
  await deps.sites.requireReadable(siteId, pageSlug);
  const roomId = await rooms.activeRoomId(siteId, pageSlug);
  if (!roomId) throw roomNotFound(siteId, pageSlug);
  return roomId;
}

const roomNotFound = (siteId: string, pageSlug: string) =>
  notFound("room-not-found", `Page ${siteId}/${pageSlug} has no room yet.`);

/** Rosters from a power levels content (JSON), or empty ones when there is none. */
function rosters(deps: RoomReadDeps, powerLevels: string | null): Rosters {
  return deriveRosters(powerLevels === null ? undefined : JSON.parse(powerLevels), inServiceNamespace(deps.names));
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
