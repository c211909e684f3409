// Which power level the applied roles give a user in a room, and power_levels content with
// users' levels changed (pure).
import { ROLE_LEVELS } from "../rooms/roles.ts";
import type { RoleKind } from "./standing.ts";

export const ROLE_KINDS: readonly RoleKind[] = ["admin", "manager", "moderator"];

/** The level each role is written at: admin 100, manager 75, moderator 50. */
export const levelOf = (role: RoleKind): number => ROLE_LEVELS[role];

export interface AppliedRole {
  userId: string;
  role: RoleKind;
  /** "" for site roles. */
  pageSlug: string;
  level: number;
}

/**
 * The levels in one room: the Space (`pageSlug` null) carries the site roles; a page's room the
 * site roles and that page's moderators. A user holding several roles gets the highest level.
 */
export function levelsInRoom(roles: AppliedRole[], pageSlug: string | null): Map<string, number> {
  const levels = new Map<string, number>();
  for (const role of roles) {
    const applies = role.role === "moderator" ? pageSlug !== null && role.pageSlug === pageSlug : true;
    if (applies) levels.set(role.userId, Math.max(levels.get(role.userId) ?? -Infinity, role.level));
  }
  return levels;
}

/** `content` (an m.room.power_levels content) with each user's level set, or removed for null. */
export function withUserLevels(
  content: Record<string, unknown>,
  changes: ReadonlyMap<string, number | null>,
): Record<string, unknown> {
  const current = content.users;
  const users: Record<string, unknown> =
    typeof current === "object" && current !== null && !Array.isArray(current) ? { ...current } : {};
  for (const [userId, level] of changes) {
    if (level === null) delete users[userId];
    else users[userId] = level;
  }
  return { ...content, users };
}
