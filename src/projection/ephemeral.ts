// Ephemeral room data (typing, read receipts, presence) pushed by the homeserver
// (receive_ephemeral), turned into `ephemeral` live events of the pages concerned.
import type { Db } from "../db/client.ts";
import type { MatrixNames } from "../matrix/names.ts";
import { addLiveEvents } from "../sse/live-event-store.ts";

export interface EphemeralEvent {
  type: string;
  room_id?: string;
  sender?: string;
  content?: Record<string, any>;
}

/** How a user appears in ephemeral payloads: like a Message author. */
export type UserRef =
  | { type: "visitor"; public_key: string | null; display_name: string | null }
  | { type: "matrix"; mxid: string; display_name: string | null };

type Page = { siteId: string; pageSlug: string; roomId: string };

export class EphemeralProjector {
  constructor(private readonly db: Db, private readonly names: MatrixNames) {}

  /** Projects the events into live events of the pages concerned. */
  async apply(events: EphemeralEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type === "m.typing") await this.typing(event);
      else if (event.type === "m.receipt") await this.receipts(event);
      else if (event.type === "m.presence") await this.presence(event);
    }
  }

  /** The typing snapshot of a page's active room. */
  async typingSnapshot(siteId: string, pageSlug: string): Promise<Record<string, unknown>> {
    const room = await this.db.room.findFirst({ where: { siteId, pageSlug, state: "active" }, select: { roomId: true } });
    const typing = room ? await this.db.roomTyping.findUnique({ where: { roomId: room.roomId } }) : null;
    const userIds = typing ? (JSON.parse(typing.userIds) as string[]) : [];
    return { kind: "typing", users: await this.refs(userIds, room?.roomId ?? null) };
  }

  private async typing(event: EphemeralEvent): Promise<void> {
    const page = await this.page(event.room_id);
    if (!page) return;
    const userIds = ((event.content?.user_ids ?? []) as unknown[]).filter((u): u is string => typeof u === "string" && u !== this.names.botUserId);
    await this.db.roomTyping.upsert({
      where: { roomId: page.roomId },
      create: { roomId: page.roomId, userIds: JSON.stringify(userIds) },
      update: { userIds: JSON.stringify(userIds) },
    });
    await this.emit(page, { kind: "typing", users: await this.refs(userIds, page.roomId) });
  }

  /** m.receipt content: { <event_id>: { <receipt type>: { <user_id>: { ts } } } }. */
  private async receipts(event: EphemeralEvent): Promise<void> {
    const page = await this.page(event.room_id);
    if (!page) return;
    for (const [eventId, byType] of Object.entries(event.content ?? {})) {
      for (const [receiptType, byUser] of Object.entries((byType ?? {}) as Record<string, Record<string, { ts?: number }>>)) {
        for (const [userId, receipt] of Object.entries(byUser ?? {})) {
          if (userId === this.names.botUserId) continue;
          const [user] = await this.refs([userId], page.roomId);
          await this.emit(page, { kind: "receipt", event_id: eventId, receipt_type: receiptType, user, ts: receipt?.ts ?? null });
        }
      }
    }
  }

  /** Presence has no room: it goes to every page room the user has joined. */
  private async presence(event: EphemeralEvent): Promise<void> {
    const userId = event.sender;
    if (!userId || userId === this.names.botUserId) return;
    const memberships = await this.db.roomMember.findMany({ where: { userId, membership: "join" }, select: { roomId: true } });
    for (const { roomId } of memberships) {
      const page = await this.page(roomId);
      if (!page) continue;
      const [user] = await this.refs([userId], roomId);
      const c = event.content ?? {};
      await this.emit(page, {
        kind: "presence",
        user,
        presence: typeof c.presence === "string" ? c.presence : null,
        last_active_ago: typeof c.last_active_ago === "number" ? c.last_active_ago : null,
        currently_active: typeof c.currently_active === "boolean" ? c.currently_active : null,
      });
    }
  }

  private async page(roomId: string | undefined): Promise<Page | null> {
    if (!roomId) return null;
    return this.db.room.findUnique({ where: { roomId }, select: { roomId: true, siteId: true, pageSlug: true } });
  }

  private async emit(page: Page, payload: Record<string, unknown>): Promise<void> {
    await addLiveEvents(this.db, (tx) => tx.liveEvent.create({ data: { siteId: page.siteId, pageSlug: page.pageSlug, type: "ephemeral", payload: JSON.stringify(payload) } }));
  }

  private async refs(userIds: string[], roomId: string | null): Promise<UserRef[]> {
    if (userIds.length === 0) return [];
    const [visitors, members] = await Promise.all([
      this.db.virtualUser.findMany({ where: { userId: { in: userIds } }, select: { userId: true, publicKey: true, displayName: true } }),
      roomId ? this.db.roomMember.findMany({ where: { roomId, userId: { in: userIds } }, select: { userId: true, displayName: true } }) : [],
    ]);
    const visitor = new Map(visitors.map((v) => [v.userId, v]));
    const member = new Map(members.map((m) => [m.userId, m]));
    return userIds.map((userId): UserRef => {
      const displayName = member.get(userId)?.displayName ?? visitor.get(userId)?.displayName ?? null;
      return this.names.isVisitorUserId(userId)
        ? { type: "visitor", public_key: visitor.get(userId)?.publicKey ?? null, display_name: displayName }
        : { type: "matrix", mxid: userId, display_name: displayName };
    });
  }
}
