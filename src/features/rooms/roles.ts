// Role rosters derived from a room's m.room.power_levels content (pure). Power levels are the
// truth: a level set by hand in a Matrix client counts like one the service applied.
import type { MatrixNames } from "../../matrix/names.ts";

/** The lowest level of each role: admin ≥ 100, manager 75-99, moderator 50-74. */
export const ROLE_LEVELS = { admin: 100, manager: 75, moderator: 50 } as const;

export interface RosterEntry {
  userId: string;
  level: number;
}

export interface Rosters {
  admins: RosterEntry[];
  managers: RosterEntry[];
  moderators: RosterEntry[];
}

/**
 * The service's own users (the bot, virtual users) are never listed: the bot is the creator
 * with unlimited power, and visitors hold no roles.
 */
export const inServiceNamespace = (names: MatrixNames) => (userId: string) =>
  userId.startsWith(`@${names.prefix}`) && userId.endsWith(`:${names.serverName}`);

/** Each roster sorted by level descending, then user id. Users below moderator are in none. */
export function deriveRosters(powerLevels: unknown, excluded: (userId: string) => boolean): Rosters {
  const users = isObject(powerLevels) && isObject(powerLevels.users) ? powerLevels.users : {};
  const entries = Object.entries(users)
    .map(([userId, value]) => ({ userId, level: levelOf(value) }))
    .filter((e): e is RosterEntry => e.level !== null && e.level >= ROLE_LEVELS.moderator && !excluded(e.userId))
    .sort((a, b) => b.level - a.level || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
  return {
    admins: entries.filter((e) => e.level >= ROLE_LEVELS.admin),
    managers: entries.filter((e) => e.level >= ROLE_LEVELS.manager && e.level < ROLE_LEVELS.admin),
    moderators: entries.filter((e) => e.level < ROLE_LEVELS.manager),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Rooms before v10 also allow levels as decimal strings; anything else is not a level. */
export function levelOf(value: unknown): number | null {
  const level =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isSafeInteger(level) ? level : null;
}
