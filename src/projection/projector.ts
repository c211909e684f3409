// Applies appservice transactions to the read model. Transactions are idempotent by txn id,
// and each room event's effect is an upsert, so a transaction retried after a partial failure
// converges to the same state (its ephemeral data may be emitted twice, which is harmless:
// typing is a state, receipts and presence repeat anyway).
import type { Db, Tx } from "../db/client.ts";
import type { MatrixNames } from "../matrix/names.ts";
import { isCommentEvent, messageContent, proofOf, relationsOf, type RoomEvent } from "./message-content.ts";
import { EphemeralProjector, type EphemeralEvent } from "./ephemeral.ts";
import { applyRoomState, ROOM_STATE_TYPES } from "./room-state.ts";


export class Projector {
  readonly ephemeral: EphemeralProjector;

  constructor(
    private readonly db: Db,
    private readonly names: MatrixNames,
    /** Called after each applied transaction: delivers its new live events. */
    private readonly applied: () => Promise<void>,
  ) {
    this.ephemeral = new EphemeralProjector(db, names);
  }

  /** Applies one transaction; false when it had been applied already. */
  async applyTransaction(txnId: string, events: RoomEvent[], ephemeral: EphemeralEvent[] = []): Promise<boolean> {
    for (const event of events) await this.project(event);
    await this.ephemeral.apply(ephemeral);
    await this.applied();
    return true;
  }

  private async project(event: RoomEvent): Promise<void> {
    if (!event?.room_id || !event.event_id) return;
    if (event.state_key !== undefined && ROOM_STATE_TYPES.has(event.type)) {
      const known = (await this.db.room.count({ where: { roomId: event.room_id } })) + (await this.db.site.count({ where: { spaceRoomId: event.room_id } }));
      if (known > 0) await applyRoomState(this.db, event);
      return;
    }
    const room = await this.db.room.findUnique({ where: { roomId: event.room_id } });
    if (!room) return;
    if (event.type === "m.room.member" && typeof event.state_key === "string") {
      await this.projectMember(event);
      return;
    }
    if (!isCommentEvent(event)) return;
    const relations = relationsOf(event.content);
    if (relations.replaces) return; // edits arrive with the edit feature
    await this.db.$transaction(async (tx) => {
      if (await tx.comment.findUnique({ where: { eventId: event.event_id }, select: { eventId: true } })) return;
      const author = await this.authorOf(tx, event, room.siteId);
      await tx.comment.create({
        data: {
          eventId: event.event_id,
          roomId: event.room_id,
          siteId: room.siteId,
          pageSlug: room.pageSlug,
          sender: event.sender,
          submissionId: author.submissionId,
          authorType: author.type,
          authorPublicKey: author.publicKey,
          displayName: author.displayName,
          avatarUrl: author.avatarUrl,
          content: JSON.stringify(messageContent(event)),
          replyTo: relations.replyTo,
          threadRoot: relations.threadRoot,
          originServerTs: BigInt(Math.trunc(event.origin_server_ts ?? Date.now())),
        },
      });
      await tx.liveEvent.create({ data: { siteId: room.siteId, pageSlug: room.pageSlug, type: "message_created", eventId: event.event_id } });
    });
  }

  /**
   * A visitor is recognized by its namespace and by a proof block whose key derives the
   * sender's user id; only this service can send as those users (exclusive namespace).
   */
  private async authorOf(tx: Tx, event: RoomEvent, siteId: string) {
    const member = await tx.roomMember.findUnique({ where: { roomId_userId: { roomId: event.room_id, userId: event.sender } } });
    const profile = { displayName: member?.displayName ?? null, avatarUrl: member?.avatarUrl ?? null };
    if (this.names.isVisitorUserId(event.sender)) {
      const proof = proofOf(event.content);
      const known = await tx.virtualUser.findUnique({ where: { userId: event.sender } });
      const publicKey =
        known?.publicKey ??
        (proof && this.names.visitorUserId(siteId, Buffer.from(proof.public_key, "base64url")) === event.sender ? proof.public_key : null);
      return { type: "visitor", publicKey, submissionId: proof?.submission_id ?? null, ...profile };
    }
    return { type: "matrix", publicKey: null, submissionId: null, ...profile };
  }

  private async projectMember(event: RoomEvent): Promise<void> {
    const c = event.content;
    const data = {
      membership: typeof c.membership === "string" ? c.membership : "leave",
      displayName: typeof c.displayname === "string" ? c.displayname : null,
      avatarUrl: typeof c.avatar_url === "string" ? c.avatar_url : null,
    };
    await this.db.roomMember.upsert({
      where: { roomId_userId: { roomId: event.room_id, userId: event.state_key! } },
      create: { roomId: event.room_id, userId: event.state_key!, ...data },
      update: data,
    });
  }
}
