// The roles' power levels in a site's rooms. What the service means each user's level to be in
// each room is recorded (RolePowerLevel) together with whether the homeserver accepted it;
// reconcile() derives those rows from the applied roles, flush() writes the unwritten ones.
// A written row is never compared with the room again: Matrix is the truth, so a level changed
// by hand in a Matrix client stays, until a role change of that user writes it anew.
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { classifyMatrixError } from "../../matrix/errors.ts";
import { RoomStore } from "../rooms/room-store.ts";
import { inServiceNamespace, ROLE_LEVELS } from "../rooms/roles.ts";
import { SiteStore } from "../sites/site-store.ts";
import { GovernanceStore } from "./governance-store.ts";
import { PowerLevelStore } from "./power-level-store.ts";
import { levelsInRoom, withUserLevels, type AppliedRole } from "./levels.ts";
import type { RoleKind } from "./standing.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

/** A room of a site: its Space (pageSlug null) or an active page room. */
export interface SiteRoom {
  roomId: string;
  pageSlug: string | null;
}

export class RolePowerLevels {
  private readonly store: PowerLevelStore;
  private readonly claims: GovernanceStore;
  private readonly siteStore: SiteStore;
  private readonly roomStore: RoomStore;

  constructor(
    db: Db,
    private readonly hs: Homeserver,
    private readonly log: (message: string) => void,
  ) {
    this.store = new PowerLevelStore(db);
    this.claims = new GovernanceStore(db);
    this.siteStore = new SiteStore(db);
    this.roomStore = new RoomStore(db);
  }

  async appliedRoles(siteId: string): Promise<AppliedRole[]> {
    const rows = await this.claims.appliedRoles(siteId);
    return rows.map((r) => ({ ...r, role: r.role as RoleKind }));
  }

  /** The levels a new room of the site starts with: the Space (pageSlug null) or a page's room. */
  async initialLevels(siteId: string, pageSlug: string | null): Promise<Record<string, number>> {
    return Object.fromEntries(levelsInRoom(await this.appliedRoles(siteId), pageSlug));
  }

  /** A room was created with these levels: recorded as written, so they are neither written again nor fought. */
  async recordCreated(siteId: string, roomId: string, levels: Record<string, number>): Promise<void> {
    for (const [userId, level] of Object.entries(levels)) {
      await this.store.recordWritten(siteId, roomId, userId, level);
    }
  }

  /**
   * Brings the site's rows in line with its applied roles: a row for every room and user a role
   * covers, a changed level unwritten again; rows of rooms the site no longer uses go. `force`
   * (room → users) rewrites those users' levels even where the rows agree (an admin roster reset
   * also removes admins made by hand).
   */
  async reconcile(siteId: string, force: ReadonlyMap<string, ReadonlySet<string>> = new Map()): Promise<void> {
    const [roles, rooms, rows] = await Promise.all([
      this.appliedRoles(siteId),
      this.rooms(siteId),
      this.store.rowsOf(siteId),
    ]);
    await this.store.keepOnly(
      siteId,
      rooms.map((r) => r.roomId),
    );
    for (const room of rooms) {
      const wanted = levelsInRoom(roles, room.pageSlug);
      const existing = new Map(rows.filter((r) => r.roomId === room.roomId).map((r) => [r.userId, r]));
      const forced = force.get(room.roomId) ?? new Set<string>();
      for (const userId of new Set([...wanted.keys(), ...existing.keys(), ...forced])) {
        const level = wanted.get(userId) ?? null;
        const row = existing.get(userId);
        if (!row && level === null && !forced.has(userId)) continue;
        if (row && row.level === level && !forced.has(userId)) continue;
        try {
          await this.store.want(siteId, room.roomId, userId, level);
        } catch (err) {
          // Another instance created it meanwhile; the next reconcile sees it.
          if (!isUniqueViolation(err)) throw err;
        }
      }
    }
  }

  /** Users other than `keep` at admin level in the site's rooms as projected (also those made by hand), per room. */
  async otherAdmins(siteId: string, keep: string): Promise<Map<string, Set<string>>> {
    const rooms = await this.rooms(siteId);
    const states = await this.roomStore.currentState(
      rooms.map((r) => r.roomId),
      [EventType.PowerLevels],
    );
    const ours = inServiceNamespace(this.hs.names);
    const admins = new Map<string, Set<string>>();
    for (const state of states) {
      const users = (JSON.parse(state.content) as { users?: Record<string, unknown> }).users ?? {};
      const found = Object.entries(users)
        .filter(([userId, level]) => userId !== keep && !ours(userId) && Number(level) >= ROLE_LEVELS.admin)
        .map(([userId]) => userId);
      admins.set(state.roomId, new Set(found));
    }
    return admins;
  }

  /**
   * Writes the unwritten rows (of one site, or all), one power-levels change per room, read from
   * the homeserver just before. A failure leaves the room's rows unwritten for the convergence
   * pass; it never throws.
   */
  async flush(siteId?: string): Promise<void> {
    const rows = await this.store.unwritten(siteId);
    const byRoom = new Map<string, typeof rows>();
    for (const row of rows) byRoom.set(row.roomId, [...(byRoom.get(row.roomId) ?? []), row]);
    for (const [roomId, pending] of byRoom) {
      try {
        const content = (await this.hs.stateContent(roomId, EventType.PowerLevels)) ?? {};
        await this.hs.sendState(
          roomId,
          EventType.PowerLevels,
          "",
          withUserLevels(content, new Map(pending.map((r) => [r.userId, r.level]))),
        );
        // Only rows still asking for the level just written: a change meanwhile stays unwritten.
        for (const row of pending) {
          await this.store.markWritten(roomId, row.userId, row.level);
        }
      } catch (err) {
        const { message } = classifyMatrixError(err);
        this.log(`governance: power levels of ${roomId} not written (${message}); the convergence pass retries`);
        await this.store.markFailed(roomId, message);
      }
    }
  }

  /** Sites with applied roles or recorded levels: what the convergence pass looks at. */
  async sitesToConverge(): Promise<string[]> {
    const [claims, rows] = await Promise.all([this.claims.sitesWithAppliedRoles(), this.store.sites()]);
    return [...new Set([...claims, ...rows])].sort();
  }

  /** The site's Space (if provisioned) and its active page rooms. */
  async rooms(siteId: string): Promise<SiteRoom[]> {
    const [spaceRoomId, rooms] = await Promise.all([
      this.siteStore.spaceRoomId(siteId),
      this.roomStore.activeRooms(siteId),
    ]);
    return [...(spaceRoomId ? [{ roomId: spaceRoomId, pageSlug: null }] : []), ...rooms];
  }
}
