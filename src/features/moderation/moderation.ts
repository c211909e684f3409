// Moderation: what a site's governors do, each a Matrix event the AS bot sends (a redaction, a
// ban, m.room.pinned_events, power levels), so Element and the dashboard show the same truth and
// the projection reflects an act made in either; and comments held for review, which stay in the
// service's durable queue (Submission status "held") until approved or rejected.
//
// The bot acts for the governor (it cannot act as a human Matrix account), so each act's reason
// names who asked: "@mod:server: <reason>".
import type { Db, Tx } from "../../db/client.ts";
import type { SiteBan } from "../../db/client.ts";
import { DomainError, forbidden, notFound, validationError } from "../../core/errors.ts";
import { isValidUserId } from "../../core/identifiers.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { PROOF_KEY } from "../../matrix/events.ts";
import type { MatrixNames } from "../../matrix/names.ts";
import type { SubmissionPayload } from "../../queue/payloads.ts";
import type { RoomEvent } from "../../projection/room-event.ts";
import { parsePublicKey } from "../../security/author-proof.ts";
import type { WriteModeration } from "../../writes/pipeline.ts";
import type { Sites } from "../sites/sites.ts";
import { recordHeldActivity } from "../dashboard/site-activity.ts";
import { addLiveEvents } from "../../sse/live-event-store.ts";
import {
  holdReason,
  type HoldReason,
  type HoldSetting,
  normalizeWords,
  settingInForce,
  type HoldMode,
} from "./hold-rules.ts";
import { type HeldSubmission, type Keyset, ModerationStore, NEW_COMMENT_KINDS } from "./moderation-store.ts";
import { closedLevels, isClosed, reopenedLevels } from "./page-closure.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";
import { MAX_MODERATION_REASON, MAX_BULK_DELETE, MAX_BAN_SECONDS } from "../../config/limits.ts";

/** Who acts: the operator, or a signed-in Matrix user (the dashboard feature's Governor). */
export type Actor = { kind: "operator" } | { kind: "matrix"; userId: string };

const NEW_COMMENTS: ReadonlySet<string> = new Set(NEW_COMMENT_KINDS);

/** The text fields of a comment's content a hold reads (a body, a caption, a poll's question and answers). */
const TEXT_KEYS = new Set(["body", "formatted_body", "m.text", "org.matrix.msc1767.text", "question"]);

/** Rejected comments stay visible to their authors this long, then are deleted; failed ones are shown as long. */
export const REJECTED_KEPT_MS = 7 * 24 * 3600_000;

/** How often the ban expiry pass looks for bans that have ended. */
export const BAN_EXPIRY_INTERVAL_MS = 30_000;

export const commentNotFound = (eventId: string) => notFound("comment-not-found", `No comment ${eventId}.`);
const submissionNotFound = (id: string) => notFound("held-comment-not-found", `No held comment ${id}.`);
const pageNotFound = (siteId: string, pageSlug: string) =>
  notFound("page-not-found", `Page ${siteId}/${pageSlug} has no room yet (nothing to close or pin).`);

/** Who asked, as the reasons of the bot's events and the rows name them. */
export const actorName = (actor: Actor): string => (actor.kind === "operator" ? "operator" : actor.userId);
const reasonOf = (actor: Actor, reason: string | null) =>
  reason ? `${actorName(actor)}: ${reason}` : `${actorName(actor)}`;

/** A ban's target: a visitor (their public key) or a Matrix account. */
export interface BanTarget {
  publicKey?: string | null;
  mxid?: string | null;
}

export interface BanInput {
  siteId: string;
  target: BanTarget;
  reason: string | null;
  /** null: until unbanned. */
  durationSeconds: number | null;
}

export class Moderation implements WriteModeration {
  readonly store: ModerationStore;

  constructor(
    private readonly db: Db,
    private readonly hs: Homeserver,
    private readonly names: MatrixNames,
    private readonly sites: Sites,
    private readonly hooks: {
      /** A held comment was approved: the worker may claim it now. */
      queued: () => void;
      /** Held-comment activity rows were committed: open dashboards hear of them (ClusterSignals.liveEventsStored). */
      activityStored: () => void;
      /** A comment was held, in the transaction storing it: webhooks record comment.held. */
      held: (tx: Tx, submission: HeldSubmission) => Promise<void>;
      /** A page's reads changed without a Matrix event (a held comment stored or reviewed): caches drop it. */
      changed: (siteId: string, pageSlug: string) => void;
      /** Applies an event the service sent as if the homeserver had pushed it (Projector.applyTransaction). */
      applySent: (event: RoomEvent) => Promise<void>;
      log: (message: string) => void;
    },
  ) {
    this.store = new ModerationStore(db);
  }

  // The write pipeline's checks (WriteModeration).

  /** 403 author-banned for a banned visitor's write on the site; 403 page-closed for a write on a closed page. */
  async admit(siteId: string, pageSlug: string | undefined, author: string): Promise<void> {
    const key = parsePublicKey(author);
    if (!key) return;
    const [ban, room] = await Promise.all([
      this.store.ban(siteId, this.names.visitorUserId(siteId, key.bytes)),
      pageSlug === undefined ? null : this.store.pageRoom(siteId, pageSlug),
    ]);
    if (ban && inForce(ban, new Date()))
      throw forbidden(
        "author-banned",
        ban.expiresAt
          ? `This author is banned from site ${siteId} until ${ban.expiresAt.toISOString()}.`
          : `This author is banned from site ${siteId}.`,
      );
    if (room && isClosed(room.powerLevels))
      throw forbidden("page-closed", `Page ${siteId}/${pageSlug} is closed to new comments.`);
  }

  /** Why a new comment is held for review, or null (every other write is never held). */
  async holdReason(
    siteId: string,
    pageSlug: string,
    author: string,
    kind: string,
    payload: SubmissionPayload,
  ): Promise<HoldReason | null> {
    if (!NEW_COMMENTS.has(kind) || payload.matrix.action !== "send") return null;
    const setting = await this.settingOf(siteId, pageSlug);
    if (setting.mode === "off" && setting.words.length === 0) return null;
    const firstOnSite = setting.mode === "first-post" ? !(await this.store.hasCommented(siteId, author)) : false;
    return holdReason(setting, { text: textOf(payload.matrix.content).join("\n"), firstOnSite });
  }

  /** The dashboards' activity (comment_held) and the webhooks' comment.held of a comment being held, in the transaction storing it. */
  async recordHeld(tx: Tx, submission: HeldSubmission): Promise<void> {
    await recordHeldActivity(tx, {
      siteId: submission.siteId,
      pageSlug: submission.pageSlug,
      submissionId: submission.id,
      type: "comment_held",
      reason: submission.heldReason,
    });
    await this.hooks.held(tx, submission);
  }

  /** A submission was stored held: its author's reads change, dashboards hear of it. */
  heldStored(submission: HeldSubmission): void {
    this.hooks.changed(submission.siteId, submission.pageSlug);
    this.hooks.activityStored();
  }

  // Hold settings.

  /** The setting in force on a page (pageSlug null: the site's own). */
  async settingOf(siteId: string, pageSlug: string | null): Promise<HoldSetting> {
    const { site, page } = await this.store.settings(siteId, pageSlug);
    const declared = this.sites.declared.get(siteId);
    const words = normalizeWords(declared?.moderationWords ?? []);
    const configured: HoldSetting | null =
      declared?.moderation || declared?.moderationWords
        ? { mode: declared.moderation ?? "off", words: "words" in words ? words.words : [] }
        : null;
    return settingInForce(page, site, configured);
  }

  /** Sets the hold setting of a site (pageSlug null) or page; mode null removes it (the next one out applies). */
  async setHoldSetting(
    siteId: string,
    pageSlug: string | null,
    mode: HoldMode | null,
    words: string[],
  ): Promise<HoldSetting> {
    await this.sites.requireReadable(siteId, pageSlug ?? undefined);
    const normalized = normalizeWords(words);
    if ("error" in normalized)
      throw validationError("Invalid word list.", [{ field: "words", message: normalized.error }]);
    await this.store.setSetting(siteId, pageSlug ?? "", mode === null ? null : { mode, words: normalized.words });
    return this.settingOf(siteId, pageSlug);
  }

  // Acts on comments.

  /** A comment of the site, or 404 comment-not-found. */
  async commentOf(siteId: string, eventId: string) {
    const comment = await this.store.comment(eventId);
    if (!comment || comment.siteId !== siteId) throw commentNotFound(eventId);
    return comment;
  }

  /** Redacts comments as the bot with a reason naming who asked; one already deleted stays as it is. */
  async deleteComments(siteId: string, eventIds: string[], reason: string | null, actor: Actor): Promise<string[]> {
    checkReason(reason);
    checkBulkSize(eventIds);
    const comments = await Promise.all([...new Set(eventIds)].map((id) => this.commentOf(siteId, id)));
    for (const comment of comments) {
      if (comment.status === "redacted") continue;
      // The transaction id makes a retry (or a second moderator's same delete) one redaction.
      await this.hs.redactEvent(
        this.names.botUserId,
        comment.roomId,
        comment.eventId,
        `moderation.redact.${comment.eventId}`,
        { reason: reasonOf(actor, reason) },
      );
    }
    return comments.map((c) => c.eventId);
  }

  /** Pins (or unpins) a comment in its room's m.room.pinned_events; pinning a pinned comment changes nothing. */
  async setPinned(siteId: string, eventId: string, pinned: boolean): Promise<void> {
    const comment = await this.commentOf(siteId, eventId);
    if (pinned && comment.status === "redacted")
      throw new DomainError("comment-redacted", 409, `Comment ${eventId} is deleted; it cannot be pinned.`);
    const content = (await this.hs.stateContent(comment.roomId, EventType.PinnedEvents)) ?? {};
    const current = Array.isArray(content.pinned) ? content.pinned.filter((id) => typeof id === "string") : [];
    const next = pinned
      ? current.includes(eventId)
        ? current
        : [...current, eventId]
      : current.filter((id) => id !== eventId);
    if (next.length === current.length) return;
    await this.hs.sendState(comment.roomId, EventType.PinnedEvents, "", { ...content, pinned: next });
  }

  /**
   * Closes (or reopens) a page to new comments through its room's power levels. In force when it
   * returns: the new levels are projected before then (writes are admitted by the projected
   * levels, and the homeserver applies the same ones to the sends that follow).
   */
  async setClosed(siteId: string, pageSlug: string, closed: boolean): Promise<void> {
    await this.sites.requireReadable(siteId, pageSlug);
    const room = await this.store.pageRoom(siteId, pageSlug);
    if (!room) throw pageNotFound(siteId, pageSlug);
    const content = (await this.hs.stateContent(room.roomId, EventType.PowerLevels)) ?? {};
    if (isClosed(content) === closed) return;
    const eventId = await this.hs.sendState(
      room.roomId,
      EventType.PowerLevels,
      "",
      closed ? closedLevels(content) : reopenedLevels(content),
    );
    await this.hooks.applySent((await this.hs.getEvent(room.roomId, eventId)) as unknown as RoomEvent);
  }

  /** Whether a page is closed and its pinned comments' ids, as projected. */
  async pageState(siteId: string, pageSlug: string): Promise<{ closed: boolean; pinned: string[] }> {
    const room = await this.store.pageRoom(siteId, pageSlug);
    return room ? { closed: isClosed(room.powerLevels), pinned: room.pinned } : { closed: false, pinned: [] };
  }

  // Bans.

  /** The banned user a target names on the site. */
  bannedUser(siteId: string, target: BanTarget): { userId: string; publicKey: string | null } {
    if (target.publicKey && target.mxid)
      throw validationError("Name one author: publicKey or mxid.", [{ field: "mxid", message: "not with publicKey" }]);
    if (target.publicKey) {
      const key = parsePublicKey(target.publicKey);
      if (!key)
        throw validationError("Invalid public key.", [
          { field: "publicKey", message: "a base64url Ed25519 public key" },
        ]);
      return { userId: this.names.visitorUserId(siteId, key.bytes), publicKey: key.text };
    }
    if (target.mxid && isValidUserId(target.mxid)) return { userId: target.mxid, publicKey: null };
    throw validationError("Name the author: publicKey (a visitor) or mxid (a Matrix account).", [
      { field: target.mxid ? "mxid" : "publicKey", message: target.mxid ? "not a Matrix user id" : "required" },
    ]);
  }

  /**
   * Bans an author from the site: recorded first (their writes are refused at once), then the
   * bot bans the user in the Space and every page room. A ban again replaces reason and end.
   */
  async ban(input: BanInput, actor: Actor): Promise<SiteBan> {
    checkReason(input.reason);
    await this.sites.requireReadable(input.siteId);
    if (
      input.durationSeconds !== null &&
      (!Number.isInteger(input.durationSeconds) || input.durationSeconds < 1 || input.durationSeconds > MAX_BAN_SECONDS)
    )
      throw validationError("Invalid duration.", [
        { field: "durationSeconds", message: `1-${MAX_BAN_SECONDS} seconds, or null for ever` },
      ]);
    const { userId, publicKey } = this.bannedUser(input.siteId, input.target);
    if (userId === this.names.botUserId) throw forbidden("not-bannable", "The service's bot cannot be banned.");
    const ban = await this.store.putBan({
      siteId: input.siteId,
      userId,
      publicKey: publicKey ?? (await this.store.visitorKeyOf(userId)),
      reason: input.reason,
      bannedBy: actorName(actor),
      expiresAt: input.durationSeconds === null ? null : new Date(Date.now() + input.durationSeconds * 1000),
    });
    const reason = reasonOf(actor, input.reason);
    for (const roomId of await this.roomsOf(input.siteId)) await this.hs.ban(roomId, userId, reason);
    return ban;
  }

  /** Lifts a ban: the bot unbans the user in the site's rooms, then the row goes. False when there was none. */
  async unban(siteId: string, target: BanTarget, actor: Actor): Promise<boolean> {
    await this.sites.requireReadable(siteId);
    const { userId } = this.bannedUser(siteId, target);
    const existed = (await this.store.ban(siteId, userId)) !== null;
    await this.lift(siteId, userId, reasonOf(actor, "unbanned"));
    return existed;
  }

  private async lift(siteId: string, userId: string, reason: string, expiredBy?: Date): Promise<void> {
    for (const roomId of await this.roomsOf(siteId)) await this.hs.unban(roomId, userId, reason);
    await this.store.deleteBan(siteId, userId, expiredBy);
  }

  /** The ban expiry pass: lifts the timed bans that have ended. Never throws. */
  async liftExpiredBans(): Promise<void> {
    try {
      const now = new Date();
      for (const ban of await this.store.expiredBans(now, 100)) {
        try {
          await this.lift(ban.siteId, ban.userId, "the ban has ended", now);
        } catch (err) {
          this.hooks.log(`moderation: ban of ${ban.userId} on ${ban.siteId} not lifted yet: ${(err as Error).message}`);
        }
      }
      await this.store.pruneRejected(new Date(now.getTime() - REJECTED_KEPT_MS));
    } catch (err) {
      this.hooks.log(`moderation: ban expiry pass: ${(err as Error).message}`);
    }
  }

  bans(siteId: string, cursor: { createdAt: Date; userId: string } | null, take: number) {
    return this.store.bans(siteId, new Date(), cursor, take);
  }

  private async roomsOf(siteId: string): Promise<string[]> {
    const { spaceRoomId, pageRooms } = await this.store.siteRooms(siteId);
    return [...(spaceRoomId ? [spaceRoomId] : []), ...pageRooms];
  }

  // Held comments.

  /** A held (or reviewed) comment of the site, or 404 held-comment-not-found. */
  async heldOf(siteId: string, submissionId: string): Promise<HeldSubmission> {
    const found = await this.store.submission(submissionId);
    if (!found || found.siteId !== siteId || found.heldReason === null) throw submissionNotFound(submissionId);
    return found;
  }

  /**
   * Approves (the comment goes to Matrix as any other: the worker sends it with transaction id
   * submission.<id>) or rejects a held comment. Idempotent: a second review of the same outcome
   * answers the comment as it is; of the other outcome, 409 already-reviewed.
   */
  async review(siteId: string, submissionId: string, approve: boolean, actor: Actor): Promise<HeldSubmission> {
    const held = await this.heldOf(siteId, submissionId);
    // The homeserver would refuse its send: it stays held until the page reopens (or is rejected).
    if (approve && held.status === "held" && (await this.pageState(siteId, held.pageSlug)).closed)
      throw new DomainError(
        "page-closed",
        409,
        `Page ${siteId}/${held.pageSlug} is closed: reopen it to approve held comment ${submissionId} (it stays held).`,
      );
    const to = approve ? "queued" : "rejected";
    const by = actorName(actor);
    const activity = (tx: Tx) =>
      recordHeldActivity(tx, {
        siteId: held.siteId,
        pageSlug: held.pageSlug,
        submissionId,
        type: approve ? "comment_approved" : "comment_rejected",
        by,
      });
    if (await this.store.review(submissionId, to, by, activity)) {
      // The author's personalized read no longer shows it held (cached bodies are dropped).
      this.hooks.changed(held.siteId, held.pageSlug);
      this.hooks.activityStored();
      if (approve) this.hooks.queued();
      return (await this.store.submission(submissionId)) ?? held;
    }
    const now = (await this.store.submission(submissionId)) ?? held;
    const approved = now.status !== "held" && now.status !== "rejected";
    if (approved !== approve)
      throw new DomainError(
        "already-reviewed",
        409,
        `Held comment ${submissionId} was already ${approved ? "approved" : "rejected"}.`,
      );
    return now;
  }

  held(siteId: string, pageSlug: string | null, cursor: Keyset | null, take: number) {
    return this.store.held(siteId, pageSlug, cursor, take);
  }

  /** A verified visitor's held, rejected and (for REJECTED_KEPT_MS) failed comments on a page (their personalized read). */
  async pendingOf(siteId: string, pageSlug: string, authorPublicKey: string): Promise<HeldSubmission[]> {
    const rows = await this.store.pendingOf(siteId, pageSlug, authorPublicKey, 100);
    const shownSince = Date.now() - REJECTED_KEPT_MS;
    return rows.filter((row) => row.status !== "failed" || row.updatedAt.getTime() >= shownSince);
  }

  /**
   * A submission failed for good (the queue worker's outcome): a new comment's failure reaches
   * its author's personalized read (pendingOf) and the site's activity, with the homeserver's
   * refusal as its reason. Never throws.
   */
  async submissionFailed(submission: { id: string; kind: string; siteId: string; pageSlug: string }, reason: string) {
    if (!NEW_COMMENTS.has(submission.kind)) return;
    try {
      await addLiveEvents(this.db, (tx) =>
        recordHeldActivity(tx, {
          siteId: submission.siteId,
          pageSlug: submission.pageSlug,
          submissionId: submission.id,
          type: "comment_failed",
          reason,
        }),
      );
      this.hooks.activityStored();
      this.hooks.changed(submission.siteId, submission.pageSlug);
    } catch (err) {
      this.hooks.log(`moderation: failure of submission ${submission.id} not announced: ${(err as Error).message}`);
    }
  }
}

const inForce = (ban: SiteBan, now: Date) => ban.expiresAt === null || ban.expiresAt > now;

/** A bulk delete names 1 to MAX_BULK_DELETE comments. */
export function checkBulkSize(eventIds: readonly string[]): void {
  if (eventIds.length === 0 || eventIds.length > MAX_BULK_DELETE)
    throw validationError(`Give 1-${MAX_BULK_DELETE} comment ids.`, [
      { field: "eventIds", message: `1-${MAX_BULK_DELETE} ids` },
    ]);
}

function checkReason(reason: string | null): void {
  if (reason !== null && [...reason].length > MAX_MODERATION_REASON)
    throw validationError("The reason is too long.", [
      { field: "reason", message: `at most ${MAX_MODERATION_REASON} characters` },
    ]);
}

/** The text a comment's content shows (its proof block left out). */
export function textOf(content: unknown): string[] {
  if (typeof content !== "object" || content === null) return [];
  if (Array.isArray(content)) return content.flatMap(textOf);
  return Object.entries(content).flatMap(([key, value]) => {
    if (key === PROOF_KEY) return [];
    if (typeof value === "string") return TEXT_KEYS.has(key) ? [value] : [];
    return textOf(value);
  });
}
