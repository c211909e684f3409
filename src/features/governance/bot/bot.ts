// The AS bot: answers invites, role claims and `!service` commands in 1:1 DMs. It joins a room
// only when the inviter has standing (a pending claim or a role: no open door for spam
// invites), acts only in unencrypted rooms whose only members are the bot and the sender, and
// answers with m.notice messages. Events come from the inbox (inbox.ts), after the transaction
// that brought them was acknowledged.
import { createHash } from "node:crypto";
import type { Db } from "../../../db/client.ts";
import type { GovernanceForBot } from "../standing.ts";
import { classifyMatrixError } from "../../../matrix/errors.ts";
import type { Homeserver } from "../../../matrix/homeserver.ts";
import type { RoomEvent } from "../../../projection/room-event.ts";
import { botMessageLimiters } from "../../../config/limits.ts";
import * as answers from "./answers.ts";
import { parseRequest, type BotRequest } from "./commands.ts";
import { RoomStore } from "../../rooms/room-store.ts";
import { SiteStore } from "../../sites/site-store.ts";
import { BotInboxStore } from "./bot-inbox-store.ts";
import { isBotInvite } from "./intake.ts";
import { classifyRoom, type RoomKind } from "./room-kind.ts";
import { ContentKey, EventType, MsgType, RelType } from "../../../contract/matrix-vocabulary.ts";

export type BotMatrix = Pick<Homeserver, "joinRoom" | "leaveRoom" | "sendEvent" | "joinedOrInvited" | "stateContent">;

export interface BotOptions {
  botUserId: string;
  /** Messages (and invites) per Matrix user per minute; null: unlimited. */
  messagesPerMinute: number | null;
  log: (message: string) => void;
}

const DECLINE_REASON = "No pending role claim or role for this account. Create the claim first, then invite me again.";
/** Delivering a claim's answer is retried in place: the claim cannot be redeemed a second time to recompute it. */
const CLAIM_ANSWER_RETRY_MS = [1_000, 3_000, 10_000];

export class Bot {
  private readonly limits: ReturnType<typeof botMessageLimiters>;
  private readonly store: BotInboxStore;
  private readonly sites: SiteStore;
  private readonly rooms: RoomStore;

  constructor(
    db: Db,
    private readonly hs: BotMatrix,
    private readonly governance: GovernanceForBot,
    private readonly options: BotOptions,
  ) {
    this.limits = botMessageLimiters(options.messagesPerMinute);
    this.store = new BotInboxStore(db);
    this.sites = new SiteStore(db);
    this.rooms = new RoomStore(db);
  }

  /** Handles one event the intake queued; throws on a homeserver failure worth retrying. */
  async handle(event: RoomEvent): Promise<void> {
    if (isBotInvite(event, this.options.botUserId)) return this.answerInvite(event);
    const room = await this.store.room(event.room_id);
    if (room?.state !== "joined") return;
    if (event.type === EventType.Member) return this.followMembership(event, room.inviter);
    return this.answerMessage(event);
  }

  private async answerInvite(invite: RoomEvent): Promise<void> {
    // Over budget an invite is left pending: there is no room yet to say so in.
    if (this.budget(invite.sender, "invite") !== "within") return;
    const standing = await this.governance.hasStanding(invite.sender);
    // Recorded before joining or declining, so the room's next events are already routed to the bot.
    await this.store.recordInvite(invite.room_id, invite.sender, standing ? "joined" : "declined");
    if (!standing) {
      await this.hs.leaveRoom(this.options.botUserId, invite.room_id, DECLINE_REASON);
      return;
    }
    await this.hs.joinRoom(this.options.botUserId, invite.room_id);
    const kind = await this.roomKind(invite.room_id, invite.sender);
    await this.notice(
      invite,
      kind === "dm" ? answers.GREETING : kind === "encrypted" ? answers.ENCRYPTED : answers.GROUP_ONLY,
    );
  }

  /** When the user who invited the bot leaves, so does the bot. */
  private async followMembership(event: RoomEvent, inviter: string): Promise<void> {
    const membership = event.content?.membership;
    if (event.state_key !== inviter || (membership !== "leave" && membership !== "ban")) return;
    await this.store.markLeft(event.room_id);
    await this.hs.leaveRoom(this.options.botUserId, event.room_id);
  }

  private async answerMessage(event: RoomEvent): Promise<void> {
    const encrypted = event.type === EventType.Encrypted;
    const body = encrypted ? "" : textBody(event);
    // Notices (other bots: answering them could loop), edits, media: nothing to answer.
    if (body === null) return;
    const budget = this.budget(event.sender, "message");
    if (budget !== "within") {
      if (budget === "over, say so") await this.notice(event, answers.RATE_LIMITED);
      return;
    }
    const kind = encrypted ? "encrypted" : await this.roomKind(event.room_id, event.sender);
    if (kind === "encrypted") return this.notice(event, answers.ENCRYPTED);
    const request = parseRequest(body);
    if (kind === "group") {
      // A claim token in a room with others is never redeemed; chat among them is none of the bot's business.
      if (request) await this.notice(event, answers.GROUP_ONLY);
      return;
    }
    if (request?.kind === "claim") {
      const answer = answers.redeemAnswer(await this.governance.redeem(event.sender, request.token));
      return this.deliverClaimAnswer(event, answer);
    }
    await this.notice(event, await this.answer(event.sender, request));
  }

  private async answer(sender: string, request: Exclude<BotRequest, { kind: "claim" }> | null): Promise<string> {
    switch (request?.kind) {
      case "help":
        return answers.HELP;
      case "roles":
        return answers.rolesAnswer(await this.governance.rolesOf(sender));
      case "status": {
        const held = await this.rolesOn(sender, request.siteId);
        const summary = held.length > 0 ? await this.siteSummary(request.siteId) : null;
        return summary ? answers.statusAnswer(summary) : answers.notYours(request.siteId);
      }
      case "pending": {
        const held = await this.rolesOn(sender, request.siteId);
        if (held.length === 0) return answers.notYours(request.siteId);
        if (!held.some((r) => r.role === "admin" || r.role === "manager")) return answers.needsManager(request.siteId);
        return answers.pendingAnswer(request.siteId, await this.governance.pendingClaims(request.siteId));
      }
      default:
        return answers.UNKNOWN_COMMAND;
    }
  }

  private async rolesOn(userId: string, siteId: string) {
    return (await this.governance.rolesOf(userId)).filter((role) => role.siteId === siteId);
  }

  private async siteSummary(siteId: string): Promise<answers.SiteSummary | null> {
    const site = await this.sites.findWithSortedOrigins(siteId);
    if (!site) return null;
    const pages = await this.rooms.countActiveRooms(siteId);
    return { siteId, status: site.status, pages, origins: site.origins };
  }

  /** Asked of the homeserver each time: Matrix is the truth about who is in a room and whether it is encrypted. */
  private async roomKind(roomId: string, sender: string): Promise<RoomKind> {
    const [encryption, members] = await Promise.all([
      this.hs.stateContent(roomId, EventType.Encryption),
      this.hs.joinedOrInvited(roomId),
    ]);
    return classifyRoom({ encrypted: encryption !== null, members, botUserId: this.options.botUserId, sender });
  }

  /** Counts one message or invite of the user; over the budget, the first message in a window gets the notice. */
  private budget(userId: string, what: "message" | "invite"): "within" | "over, say so" | "over, silent" {
    const now = Date.now();
    if (!this.limits || this.limits.messages.take(userId, now)) return "within";
    return what === "message" && this.limits.notices.take(userId, now) ? "over, say so" : "over, silent";
  }

  /**
   * The claim is redeemed already, so a failure here is not retried through the inbox (that
   * would answer "used"); a transfer's new claim token is lost if every attempt fails — the
   * operator can rotate the claim token then. Never logs the answer.
   */
  private async deliverClaimAnswer(event: RoomEvent, answer: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.notice(event, answer);
      } catch (err) {
        const failure = classifyMatrixError(err);
        if (!failure.transient || attempt >= CLAIM_ANSWER_RETRY_MS.length) {
          this.options.log(
            `bot: the answer to claim message ${event.event_id} could not be delivered: ${failure.message}`,
          );
          return;
        }
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(failure.retryAfterMs ?? 0, CLAIM_ANSWER_RETRY_MS[attempt]!)),
        );
      }
    }
  }

  /** One answer per event, sent with a transaction id derived from it: a repeated handling returns the first answer. */
  private async notice(about: RoomEvent, body: string): Promise<void> {
    const txnId = `bot.${createHash("sha256").update(about.event_id).digest("base64url").slice(0, 32)}`;
    await this.hs.sendEvent(this.options.botUserId, about.room_id, EventType.Message, txnId, {
      msgtype: MsgType.Notice,
      body,
    });
  }
}

/** The body of a plain text message that is not an edit; null for anything else. */
function textBody(event: RoomEvent): string | null {
  if (event.type !== EventType.Message) return null;
  const content = event.content ?? {};
  const relation = content[ContentKey.RelatesTo] as { rel_type?: unknown } | undefined;
  if (content.msgtype !== MsgType.Text || typeof content.body !== "string" || relation?.rel_type === RelType.Replace)
    return null;
  return content.body;
}
