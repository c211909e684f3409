// A page closed to new comments, as power levels (pure): closed is the level needed to send a
// message above the level every user has by default, so visitors' virtual users (which hold no
// level of their own) cannot send; a room closed by hand in a Matrix client reads the same. And
// what a page room's projected state says: its levels and its pinned comments.
import { ROLE_LEVELS } from "../rooms/roles.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";
import type { PageRoomContents } from "../comments/comment-read-store.ts";

type Levels = Record<string, unknown>;

const level = (value: unknown): number | null =>
  typeof value === "number" && Number.isSafeInteger(value) ? value : null;

const eventsOf = (content: Levels): Record<string, unknown> =>
  typeof content.events === "object" && content.events !== null && !Array.isArray(content.events)
    ? (content.events as Record<string, unknown>)
    : {};

const usersDefault = (content: Levels): number => level(content.users_default) ?? 0;

/** The level needed to send a comment (an m.room.message) in the room. */
const messageLevel = (content: Levels): number =>
  level(eventsOf(content)[EventType.Message]) ?? level(content.events_default) ?? 0;

export const isClosed = (content: Levels): boolean => messageLevel(content) > usersDefault(content);

/**
 * The levels of the closed room: events_default at least the moderator level, and no event type
 * left sendable at the default user level (a reaction, a vote, a comment of any type).
 */
export function closedLevels(content: Levels): Levels {
  const events = Object.fromEntries(
    Object.entries(eventsOf(content)).filter(([, required]) => (level(required) ?? 0) > usersDefault(content)),
  );
  return {
    ...content,
    events,
    events_default: Math.max(level(content.events_default) ?? 0, ROLE_LEVELS.moderator),
  };
}

/** The levels of the reopened room: events_default back at the default user level. */
export function reopenedLevels(content: Levels): Levels {
  const events = Object.fromEntries(
    Object.entries(eventsOf(content)).filter(([type]) => !type.startsWith(EventType.Message)),
  );
  return { ...content, events, events_default: usersDefault(content) };
}

/** A state event's content (JSON) as an object: {} when there is none, or it is not an object. */
const stateContent = (json: string | null): Levels => {
  const value: unknown = json === null ? {} : JSON.parse(json);
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Levels) : {};
};

/** A page room's power levels as its projected state has them ({} when none). */
export const roomPowerLevels = (contents: PageRoomContents): Levels => stateContent(contents.powerLevels);

/** A page room's pinned comments' ids, in pin order, as its projected state has them. */
export function roomPins(contents: PageRoomContents): string[] {
  if (contents.pinnedEvents === null) return [];
  const pinned = stateContent(contents.pinnedEvents).pinned;
  return Array.isArray(pinned) ? pinned.filter((id): id is string => typeof id === "string") : [];
}

/** What a page room's state says of its moderation: its power levels and its pins. */
export const roomModeration = (contents: PageRoomContents): { powerLevels: Levels; pinned: string[] } => ({
  powerLevels: roomPowerLevels(contents),
  pinned: roomPins(contents),
});
