// Creating, on first write, a site's Space and a page's room with their aliases, and the
// visitor's virtual user. Aliases make creation idempotent across crashes and instances: a
// taken alias means the room exists, and it is adopted.
import type { Db } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { SiteStore } from "../sites/site-store.ts";
import { VisitorStore } from "../visitors/visitor-store.ts";
import { hasErrcode } from "../../matrix/errors.ts";
import { RoomStore } from "./room-store.ts";
import type { Quarantines } from "./quarantine.ts";
import { unmanageableReason } from "./quarantine.ts";
import { pageRoomName } from "./room-links.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

/** Rounds of "alias taken by a room we cannot manage → quarantine it → create again" per attempt. */
const MAX_PROVISIONING_ROUNDS = 3;

const MAX_REMEMBERED_JOINS = 10_000;
const membershipKey = (userId: string, roomId: string): string => `${roomId} ${userId}`;

/** The role holders a new room starts with (src/features/governance/power-levels.ts). */
export interface RoomRoster {
  /** Power levels of the site's role holders in its Space (pageSlug null) or a page's room. */
  initialLevels(siteId: string, pageSlug: string | null): Promise<Record<string, number>>;
  /** The room was created with these levels. */
  recordCreated(siteId: string, roomId: string, levels: Record<string, number>): Promise<void>;
}

export class Provisioner {
  private readonly joined = new Set<string>();
  private readonly rooms: RoomStore;
  private readonly sites: SiteStore;
  private readonly visitors: VisitorStore;

  constructor(
    db: Db,
    private readonly hs: Homeserver,
    private readonly roomVersion: string,
    /** Applies the events the homeserver pushed before the room was recorded (Projector.replayWaiting). */
    private readonly recorded: (roomId: string) => Promise<void>,
    private readonly roster: RoomRoster,
    private readonly quarantines: Quarantines,
  ) {
    this.rooms = new RoomStore(db);
    this.sites = new SiteStore(db);
    this.visitors = new VisitorStore(db);
  }

  async ensureSpace(siteId: string): Promise<string> {
    const existing = await this.sites.spaceRoomIdOrThrow(siteId);
    if (existing) return existing;
    const aliasLocalpart = this.hs.names.spaceAliasLocalpart(siteId);
    const users = await this.roster.initialLevels(siteId, null);
    const created = await this.hs.createRoom({
      aliasLocalpart,
      name: siteId,
      roomVersion: this.roomVersion,
      isSpace: true,
      users,
    });
    const roomId = created ?? (await this.hs.resolveAlias(this.hs.names.alias(aliasLocalpart)));
    await this.sites.setSpaceRoomId(siteId, roomId);
    // An adopted Space's levels are unknown: the convergence pass writes the roles into it.
    if (created) await this.roster.recordCreated(siteId, roomId, users);
    await this.recorded(roomId);
    return roomId;
  }

  /**
   * The page's active room, created on first use. A taken alias means an earlier attempt (a
   * crash, another instance) created the room: adopted when the service can manage it, else
   * quarantined, the alias moved off it and a fresh room created in its place.
   */
  async ensurePageRoom(siteId: string, pageSlug: string): Promise<string> {
    const existing = await this.rooms.activeRoomId(siteId, pageSlug);
    if (existing) return existing;
    const spaceId = await this.ensureSpace(siteId);
    const server = this.hs.names.serverName;
    const alias = this.hs.names.alias(this.hs.names.roomAliasLocalpart(siteId, pageSlug));
    const users = await this.roster.initialLevels(siteId, pageSlug);
    for (let attempt = 1; ; attempt++) {
      const created = await this.hs.createRoom({
        aliasLocalpart: this.hs.names.roomAliasLocalpart(siteId, pageSlug),
        name: pageRoomName(siteId, pageSlug),
        roomVersion: this.roomVersion,
        isSpace: false,
        users,
        initialState: [
          { type: EventType.SpaceParent, state_key: spaceId, content: { via: [server], canonical: true } },
        ],
      });
      const roomId = created ?? (await this.hs.resolveAlias(alias));
      if (!created) {
        const known = await this.rooms.find(roomId);
        const reason =
          known?.state === "quarantined" ? "the room is quarantined" : await unmanageableReason(this.hs, roomId);
        if (reason !== null) {
          // Another instance may be doing the same: a bounded number of rounds, then the queue retries.
          if (attempt >= MAX_PROVISIONING_ROUNDS)
            throw new Error(
              `page room of ${siteId}/${pageSlug}: the alias keeps pointing at rooms the service cannot manage`,
            );
          if (known?.state !== "quarantined")
            await this.quarantines.quarantine(roomId, siteId, pageSlug, known?.roomVersion ?? this.roomVersion, reason);
          await this.hs.deleteAlias(alias).catch((err) => {
            if (!hasErrcode(err, "M_NOT_FOUND")) throw err;
          });
          continue;
        }
        await this.quarantines.clear(roomId);
      }
      await this.hs.sendState(spaceId, EventType.SpaceChild, roomId, { via: [server] });
      await this.rooms.register(roomId, siteId, pageSlug, this.roomVersion);
      if (created) await this.roster.recordCreated(siteId, roomId, users);
      await this.recorded(roomId);
      return roomId;
    }
  }

  /** Registers the visitor's virtual user (once) and keeps its display name current. */
  async ensureVisitor(siteId: string, publicKey: string, displayName: string | null): Promise<string> {
    const keyBytes = Buffer.from(publicKey, "base64url");
    const userId = this.hs.names.visitorUserId(siteId, keyBytes);
    let user = await this.visitors.findUser(userId);
    if (!user) {
      await this.hs.registerUser(this.hs.names.visitorLocalpart(siteId, keyBytes));
      user = await this.visitors.recordUser(userId, siteId, publicKey);
    }
    // A new visitor without a name gets a neutral one rather than the hash localpart.
    const localpart = userId.slice(1, userId.indexOf(":"));
    const wanted = displayName ?? (user.displayName === null ? `Visitor ${localpart.slice(-6)}` : null);
    if (wanted !== null && wanted !== user.displayName) {
      await this.hs.setDisplayName(userId, wanted);
      await this.visitors.setDisplayName(userId, wanted);
    }
    return userId;
  }

  /**
   * Joins the user unless it is in the room. Joins this process made are remembered: the
   * projection records them only once the homeserver pushes the member event, and asking the
   * homeserver again for every send until then would cost a request per send.
   */
  async ensureJoined(userId: string, roomId: string): Promise<void> {
    const key = membershipKey(userId, roomId);
    if (this.joined.has(key)) return;
    if ((await this.rooms.membership(roomId, userId)) !== "join") {
      try {
        await this.hs.joinRoom(userId, roomId);
      } catch (err) {
        if (hasErrcode(err, "M_FORBIDDEN") && (await this.setAsideUnmanageable(roomId))) {
          // Not a Matrix refusal: the queue retries, and the retry provisions a fresh room.
          throw new Error(`room ${roomId} is quarantined (the service cannot manage it); the page gets a fresh room`);
        }
        throw err;
      }
    }
    if (this.joined.size >= MAX_REMEMBERED_JOINS) this.joined.delete(this.joined.values().next().value!);
    this.joined.add(key);
  }

  /**
   * A page's active room that refuses a visitor may be one the service cannot manage (recorded
   * before provisioning checked, e.g. left by a crash mid-creation): quarantined, so the page
   * moves to a fresh room. True when it was set aside.
   */
  private async setAsideUnmanageable(roomId: string): Promise<boolean> {
    const room = await this.rooms.find(roomId);
    if (room?.state !== "active") return false;
    const reason = await unmanageableReason(this.hs, roomId);
    if (reason === null) return false;
    await this.quarantines.quarantine(roomId, room.siteId, room.pageSlug, room.roomVersion, reason);
    return true;
  }

  /** Forgets a remembered join (the homeserver refused the user); true when there was one. */
  forgetJoined(userId: string, roomId: string): boolean {
    return this.joined.delete(membershipKey(userId, roomId));
  }
}
