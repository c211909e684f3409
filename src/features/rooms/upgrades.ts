// Room upgrades: a page room replaced by a newer room version. The homeserver's /upgrade (as the
// bot) writes the tombstone and creates the replacement; the service then adopts it: the page
// alias, the Space links, the page's name and the roles' levels follow, the replacement becomes
// the page's active room and the old one is superseded. Every upgrade is an intent (requested →
// observed → adopted, or failed / manual) so a crash or an outage resumes from the recorded step:
// an existing tombstone is always reused, never a second replacement forked. A tombstone written
// by hand in a Matrix client is observed through the appservice push and adopted the same way.
import { PASS_INTERVALS_MS } from "../../config/limits.ts";
import type { Db } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { classifyMatrixError, homeserverFailure } from "../../matrix/errors.ts";
import { PeriodicPass } from "../../cluster/periodic-pass.ts";
import { checkPagination } from "../../core/pagination.ts";
import { DomainError, notFound, validationError } from "../../core/errors.ts";
import { SiteStore } from "../sites/site-store.ts";
import { RoomStore } from "./room-store.ts";
import { linkPageRoom } from "./room-links.ts";
import { INTENT_STATES, UpgradeIntentStore, type IntentRow, type IntentState } from "./upgrade-intent-store.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

/** The target version of an intent the service did not request (a tombstone written by hand): known once adopted. */
const HAND_UPGRADE = "unknown";

export interface UpgradeResult {
  roomId: string;
  siteId: string;
  pageSlug: string;
  replacementRoomId: string;
  roomVersion: string;
  state: string;
}

export interface UpgradeIntent {
  roomId: string;
  siteId: string;
  pageSlug: string;
  targetVersion: string;
  replacementRoomId: string | null;
  state: string;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What adoption needs besides the rooms: the roles' levels written into the replacement, the projection told. */
export interface UpgradeHooks {
  /** The room is recorded: apply the events pushed before (Projector.replayWaiting). */
  recorded(roomId: string): Promise<void>;
  /** Writes the site's roles into its rooms (the replacement among them). */
  converge(siteId: string): Promise<void>;
  changed(siteId: string, pageSlug: string): void;
}

const invalidVersion = (message: string) => new DomainError("invalid-room-version", 400, message);
const notUpgradable = (message: string) => new DomainError("room-not-upgradable", 409, message);

export class RoomUpgrades {
  private readonly intents: UpgradeIntentStore;
  private readonly rooms: RoomStore;
  private readonly sites: SiteStore;
  private readonly pass = new PeriodicPass(() => this.resumeAll());
  /** Adoptions in progress in this process, by old room: a request and the pass share one. */
  private readonly running = new Map<string, Promise<UpgradeResult>>();

  constructor(
    db: Db,
    private readonly hs: Homeserver,
    private readonly hooks: UpgradeHooks,
    private readonly log: (message: string) => void,
  ) {
    this.intents = new UpgradeIntentStore(db);
    this.rooms = new RoomStore(db);
    this.sites = new SiteStore(db);
  }

  start(intervalMs = PASS_INTERVALS_MS.roomUpgrades): void {
    this.pass.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  /** The claim route: upgrades the page's active room. Repeated, it answers the upgrade already done. */
  async upgradePage(siteId: string, pageSlug: string, newVersion: string): Promise<UpgradeResult> {
    const active = await this.rooms.activeRoom(siteId, pageSlug);
    if (!active) throw notFound("room-not-found", `Page ${siteId}/${pageSlug} has no room.`);
    const done = await this.intents.byReplacement(active.roomId);
    if (done && done.targetVersion === newVersion) return result(done);
    return this.upgradeRoom(active.roomId, newVersion);
  }

  /** The operator route: upgrades a page room named by its id. */
  async upgradeRoom(roomId: string, newVersion: string): Promise<UpgradeResult> {
    const room = await this.rooms.find(roomId);
    if (!room) {
      if (await this.sites.isSpace(roomId))
        throw notUpgradable(`Room ${roomId} is a site's Space; only page rooms are upgraded.`);
      throw notFound("room-not-found", `Room ${roomId} is not a page room of this service.`);
    }
    const intent = await this.intents.find(roomId);
    if (intent?.state === "adopted" && intent.targetVersion === newVersion) return result(intent);
    if (room.state !== "active")
      throw new DomainError(
        "room-not-active",
        409,
        `Room ${roomId} is ${room.state}; only the page's active room is upgraded.`,
      );
    await this.checkVersion(room.roomVersion, newVersion);
    const replacement = await this.tombstoneSuccessor(roomId);
    if (replacement === null) await this.checkTombstonePower(roomId, room.roomVersion);
    await this.intents.request(roomId, room.siteId, room.pageSlug, newVersion, replacement);
    return this.resume(roomId);
  }

  /** A tombstone arrived through the appservice push (hand upgrades included): adopt its replacement. */
  async observeTombstone(roomId: string, replacementRoomId: string): Promise<void> {
    const room = await this.rooms.find(roomId);
    if (!room || room.state !== "active") return;
    const intent = await this.intents.find(roomId);
    if (intent?.replacementRoomId === replacementRoomId && intent.state === "adopted") return;
    await this.intents.request(
      roomId,
      room.siteId,
      room.pageSlug,
      intent?.targetVersion ?? HAND_UPGRADE,
      replacementRoomId,
    );
    this.pass.kick();
  }

  /** Resumes every intent a crash or an outage left unfinished. Never throws. */
  async resumeAll(): Promise<void> {
    try {
      for (const intent of await this.intents.unfinished()) await this.resume(intent.roomId).catch(() => {});
    } catch (err) {
      this.log(`rooms: upgrade intents: ${classifyMatrixError(err).message}`);
    }
  }

  private resume(roomId: string): Promise<UpgradeResult> {
    let run = this.running.get(roomId);
    if (!run) {
      run = this.advance(roomId).finally(() => this.running.delete(roomId));
      this.running.set(roomId, run);
    }
    return run;
  }

  /** Takes an intent from where it stands to adopted; a transient failure leaves it there, a permanent one marks it failed. */
  private async advance(roomId: string): Promise<UpgradeResult> {
    let intent = (await this.intents.find(roomId))!;
    try {
      if (intent.state === "requested") {
        const replacement =
          (await this.tombstoneSuccessor(roomId)) ?? (await this.hs.upgradeRoom(roomId, intent.targetVersion));
        intent = await this.intents.update(roomId, { state: "observed", replacementRoomId: replacement });
      }
      if (intent.state === "observed") intent = await this.adopt(intent, intent.replacementRoomId!, null);
      return result(intent);
    } catch (err) {
      if (err instanceof DomainError || homeserverFailure(err) !== "unavailable") {
        const message = err instanceof DomainError ? err.message : classifyMatrixError(err).message;
        // An upgrade the service did not start needs a person; its own failed upgrades may be recovered.
        await this.intents.update(roomId, {
          state: intent.targetVersion === HAND_UPGRADE ? "manual" : "failed",
          error: message,
        });
        this.log(`rooms: upgrade of ${roomId} failed: ${message}`);
      }
      throw err;
    }
  }

  /**
   * Makes `replacement` the page's room. The replacement's create event must carry the old room
   * as predecessor (and `expectedVersion`, when given); it is checked before anything changes.
   */
  private async adopt(intent: IntentRow, replacement: string, expectedVersion: string | null): Promise<IntentRow> {
    const old = (await this.rooms.find(intent.roomId))!;
    await this.hs.joinRoom(this.hs.names.botUserId, replacement);
    const create = await this.hs.stateEvent(replacement, EventType.Create);
    const predecessor = (create?.content.predecessor as { room_id?: string } | undefined)?.room_id;
    const version = String(create?.content.room_version ?? "1");
    if (predecessor !== intent.roomId)
      throw new DomainError(
        "replacement-mismatch",
        409,
        `Room ${replacement} does not name ${intent.roomId} as its predecessor.`,
      );
    if (expectedVersion !== null && version !== expectedVersion)
      throw new DomainError(
        "replacement-mismatch",
        409,
        `Room ${replacement} has room version ${version}, not ${expectedVersion}.`,
      );
    const spaceId = await this.sites.spaceRoomId(old.siteId);
    if (spaceId) await linkPageRoom(this.hs, spaceId, old.siteId, old.pageSlug, replacement, old.roomId);
    await this.rooms.activate(replacement, old.siteId, old.pageSlug, version);
    await this.hooks.recorded(replacement);
    await this.hooks.converge(old.siteId);
    this.hooks.changed(old.siteId, old.pageSlug);
    return this.intents.update(intent.roomId, {
      state: "adopted",
      replacementRoomId: replacement,
      targetVersion: version,
      error: null,
    });
  }

  /**
   * The operator's recovery of a failed or manual intent: the old room's tombstone must name
   * exactly `replacement`, whose create event must carry `newVersion` and the old room as its
   * predecessor; otherwise nothing changes.
   */
  async recover(roomId: string, newVersion: string, replacement: string): Promise<UpgradeIntent> {
    const intent = await this.intents.find(roomId);
    if (!intent) throw notFound("intent-not-found", `Room ${roomId} has no upgrade intent.`);
    if (intent.state !== "failed" && intent.state !== "manual")
      throw new DomainError(
        "intent-not-recoverable",
        409,
        `The upgrade intent of ${roomId} is ${intent.state}; only failed or manual intents are recovered.`,
      );
    const successor = await this.tombstoneSuccessor(roomId);
    if (successor !== replacement)
      throw new DomainError(
        "replacement-mismatch",
        409,
        `The tombstone of ${roomId} names ${successor ?? "no room"}, not ${replacement}.`,
      );
    try {
      return await this.adopt(intent, replacement, newVersion);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      await this.intents.update(roomId, { state: intent.state, error: classifyMatrixError(err).message });
      throw err;
    }
  }

  async list(
    page: number,
    perPage: number,
    status: string | null,
  ): Promise<{ data: UpgradeIntent[]; meta: { total: number; page: number; perPage: number; totalPages: number } }> {
    checkPagination(page, perPage);
    if (status !== null && !INTENT_STATES.includes(status as IntentState)) {
      throw validationError(`Unknown status ${status}.`, [
        { field: "status", message: `one of ${INTENT_STATES.join(", ")}` },
      ]);
    }
    const { rows, total } = await this.intents.list(page, perPage, status as IntentState | null);
    return { data: rows, meta: { total, page, perPage, totalPages: Math.ceil(total / perPage) } };
  }

  private async tombstoneSuccessor(roomId: string): Promise<string | null> {
    const tombstone = await this.hs.stateContent(roomId, EventType.Tombstone);
    return typeof tombstone?.replacement_room === "string" ? tombstone.replacement_room : null;
  }

  /** The homeserver knows `wanted` and it is newer than `current` (room versions are numbered; others are not comparable). */
  private async checkVersion(current: string, wanted: string): Promise<void> {
    if (!(await this.hs.roomVersions()).includes(wanted))
      throw invalidVersion(`The homeserver does not know room version ${JSON.stringify(wanted)}.`);
    if (!(Number(wanted) > Number(current)))
      throw invalidVersion(`Room version ${wanted} is not newer than the room's version ${current}.`);
  }

  /** Before room v12 the tombstone needs a level; from v12 the bot, as creator, has unlimited power. */
  private async checkTombstonePower(roomId: string, version: string): Promise<void> {
    const create = await this.hs.stateEvent(roomId, EventType.Create);
    const bot = this.hs.names.botUserId;
    if (Number(version) >= 12 && create?.sender === bot) return;
    const levels = (await this.hs.stateContent(roomId, EventType.PowerLevels)) ?? {};
    const needed = Number(
      (levels.events as Record<string, unknown> | undefined)?.[EventType.Tombstone] ?? levels.state_default ?? 50,
    );
    const level = Number((levels.users as Record<string, unknown> | undefined)?.[bot] ?? levels.users_default ?? 0);
    if (level < needed)
      throw notUpgradable(`The service's bot holds level ${level} in ${roomId}; the tombstone needs ${needed}.`);
  }
}

const result = (intent: IntentRow): UpgradeResult => ({
  roomId: intent.roomId,
  siteId: intent.siteId,
  pageSlug: intent.pageSlug,
  replacementRoomId: intent.replacementRoomId!,
  roomVersion: intent.targetVersion,
  state: intent.state,
});
