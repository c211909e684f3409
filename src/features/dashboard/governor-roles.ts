// Which role a Matrix user holds on a site, from the projected power levels of its rooms (pure).
// Power levels are the truth, as for the rosters (src/features/rooms/roles.ts): the Space's
// levels give the site roles, a page room's levels that page's roles (site roles are written
// into every page room too).
import { levelOf, ROLE_LEVELS } from "../rooms/roles.ts";

export type GovernorRole = "admin" | "manager" | "moderator";

/** The projected m.room.power_levels content of one room of a site: its Space (pageSlug null) or a page's active room. */
export interface RoomLevels {
  pageSlug: string | null;
  content: unknown;
}

/** The user's level in a room: their entry in `users`, else `users_default`, else 0 (the Matrix rules). */
export function userLevel(content: unknown, userId: string): number {
  const levels = isObject(content) ? content : {};
  const users = isObject(levels.users) ? levels.users : {};
  return levelOf(users[userId]) ?? levelOf(levels.users_default) ?? 0;
}

/** The role a level gives: admin ≥ 100, manager ≥ 75, moderator ≥ 50, else none. */
export function roleAt(level: number): GovernorRole | null {
  if (level >= ROLE_LEVELS.admin) return "admin";
  if (level >= ROLE_LEVELS.manager) return "manager";
  if (level >= ROLE_LEVELS.moderator) return "moderator";
  return null;
}

export const roleReaches = (role: GovernorRole | null, minimum: GovernorRole): boolean =>
  role !== null && ROLE_LEVELS[role] >= ROLE_LEVELS[minimum];

/** The site-wide role: from the Space's levels (none before the Space exists). */
export function siteRoleOf(rooms: readonly RoomLevels[], userId: string): GovernorRole | null {
  const space = rooms.find((r) => r.pageSlug === null);
  return space ? roleAt(userLevel(space.content, userId)) : null;
}

/** The role on a page: the higher of the site role and the page room's level. */
export function pageRoleOf(rooms: readonly RoomLevels[], userId: string, pageSlug: string): GovernorRole | null {
  const page = rooms.find((r) => r.pageSlug === pageSlug);
  const pageRole = page ? roleAt(userLevel(page.content, userId)) : null;
  const siteRole = siteRoleOf(rooms, userId);
  return siteRole === null || roleReaches(pageRole, siteRole) ? pageRole : siteRole;
}

/** The pages where the user holds a role above their site role (a page moderator's pages), by slug. */
export function pageRolesOf(
  rooms: readonly RoomLevels[],
  userId: string,
): Array<{ pageSlug: string; role: GovernorRole }> {
  const siteRole = siteRoleOf(rooms, userId);
  return rooms
    .flatMap((r) => {
      if (r.pageSlug === null) return [];
      const role = roleAt(userLevel(r.content, userId));
      return role && !roleReaches(siteRole, role) ? [{ pageSlug: r.pageSlug, role }] : [];
    })
    .sort((a, b) => (a.pageSlug < b.pageSlug ? -1 : a.pageSlug > b.pageSlug ? 1 : 0));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
