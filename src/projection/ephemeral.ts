// Ephemeral room data (typing, read receipts, presence) pushed by the homeserver
// (receive_ephemeral), turned into `ephemeral` live events of the pages concerned. Which kind
// goes to which method: EPHEMERAL_KINDS in event-kinds.ts.
import type { Db } from "../db/client.ts";
import type { MatrixNames } from "../matrix/names.ts";
import { addEphemeralLiveEvent } from "./live-event-store.ts";
import { joinedRoomIds, memberNames } from "./member-store.ts";
import { activeRoomId, pageRoom } from "./room-store.ts";
import { setTyping, typingUserIds } from "./typing-store.ts";
import { virtualUsers } from "./virtual-user-store.ts";

export interface EphemeralEvent {
  type: string;
  room_id?: string;
  sender?: string;
  content?: Record<string, unknown>;
}

/** How a user appears in ephemeral payloads: like a Message author. */
export type UserRef =
  | { type: "visitor"; public_key: string | null; display_name: string | null }
  | { type: "matrix"; mxid: string; display_name: string | null };

type Page = { siteId: string; pageSlug: string; roomId: string };

export class EphemeralProjector {
  constructor(
    private readonly db: Db,
    private readonly names: MatrixNames,
  ) {}

  /** The typing snapshot of a page's active room. */
  async typingSnapshot(siteId: string, pageSlug: string): Promise<Record<string, unknown>> {
    const roomId = await activeRoomId(this.db, siteId, pageSlug);
    const userIds = roomId ? await typingUserIds(this.db, roomId) : [];
    return { kind: "typing", users: await this.refs(userIds, roomId) };
  }

  /** m.typing content: { user_ids }, everyone typing now. */
  async typing(event: EphemeralEvent): Promise<void> {
    const page = await this.page(event.room_id);
    if (!page) return;
    const userIds = ((event.content?.user_ids ?? []) as unknown[]).filter(
      (u): u is string => typeof u === "string" && u !== this.names.botUserId,
    );
    await setTyping(this.db, page.roomId, userIds);
    await this.emit(page, { kind: "typing", users: await this.refs(userIds, page.roomId) });
  }

  /** m.receipt content: { <event_id>: { <receipt type>: { <user_id>: { ts } } } }. */
  async receipts(event: EphemeralEvent): Promise<void> {
    const page = await this.page(event.room_id);
    if (!page) return;
    for (const [eventId, byType] of Object.entries(event.content ?? {})) {
      for (const [receiptType, byUser] of Object.entries(
        (byType ?? {}) as Record<string, Record<string, { ts?: number }>>,
      )) {
        for (const [userId, receipt] of Object.entries(byUser ?? {})) {
          if (userId === this.names.botUserId) continue;
          const [user] = await this.refs([userId], page.roomId);
          await this.emit(page, {
            kind: "receipt",
            event_id: eventId,
            receipt_type: receiptType,
            user,
            ts: receipt?.ts ?? null,
          });
        }
      }
    }
  }

  /** Presence has no room: it goes to every page room the user has joined. */
  async presence(event: EphemeralEvent): Promise<void> {
    const userId = event.sender;
    if (!userId || userId === this.names.botUserId) return;
    for (const roomId of await joinedRoomIds(this.db, userId)) {
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
    return pageRoom(this.db, roomId);
  }

  private async emit(page: Page, payload: Record<string, unknown>): Promise<void> {
    await addEphemeralLiveEvent(this.db, page, payload);
  }

  private async refs(userIds: string[], roomId: string | null): Promise<UserRef[]> {
    if (userIds.length === 0) return [];
    const [visitors, members] = await Promise.all([
      virtualUsers(this.db, userIds),
      roomId ? memberNames(this.db, roomId, userIds) : [],
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
