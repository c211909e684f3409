// Page room membership and profiles (RoomMember), projected from m.room.member: the newest
// stored member event of a user wins (origin_server_ts, not arrival). Comments show their
// author's current joined profile, so a rename is announced on each of the author's comments.
import { commentsBySender } from "./comment-store.ts";
import { stateEvent } from "./matrix-event-store.ts";
import { memberRow, saveMember, type Membership, type Profile } from "./member-store.ts";
import { announce, type PageContext } from "./page-context.ts";
import { obj, str, type RoomEvent } from "./room-event.ts";
import { EventType } from "../contract/matrix-vocabulary.ts";

/** What a member event says; no event means not a member. */
export function membershipOf(event: RoomEvent | null): Membership {
  const c = obj(event?.content) ?? {};
  return { membership: str(c.membership) ?? "leave", displayName: str(c.displayname), avatarUrl: str(c.avatar_url) };
}

/** The profile a comment shows: its author's joined profile, else the one captured with the comment. */
export function shownProfile(member: Membership | null, captured: Profile): Profile {
  const { displayName, avatarUrl } = member?.membership === "join" ? member : captured;
  return { displayName, avatarUrl };
}

const sameProfile = (a: Profile, b: Profile) => a.displayName === b.displayName && a.avatarUrl === b.avatarUrl;

export async function projectMember(page: PageContext, userId: string): Promise<void> {
  const { tx, room } = page;
  const after = membershipOf(await stateEvent(page.reads, room.roomId, EventType.Member, userId));
  const before = await memberRow(tx, room.roomId, userId);
  if (before && before.membership === after.membership && sameProfile(before, after)) return;
  await saveMember(tx, room.roomId, userId, after);
  if (!page.live) return;
  for (const comment of await commentsBySender(tx, room, userId)) {
    if (!sameProfile(shownProfile(before, comment), shownProfile(after, comment)))
      await announce(page, "message_updated", comment.eventId);
  }
}
