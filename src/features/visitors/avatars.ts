// A visitor's avatar: set on its virtual user's Matrix profile and carried into the
// m.room.member events of every room the user has joined (MSC4466 `propagate_to: all`).
// Synapse propagates a profile change to the rooms itself; a room whose member event still
// shows another avatar afterwards (a homeserver that does not propagate) gets the member event
// from the service, so the outcome does not depend on the homeserver.
import type { Homeserver } from "../../matrix/homeserver.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

/** Sets (null: removes) the user's avatar on its profile and in every joined room. */
export async function applyAvatar(hs: Homeserver, userId: string, avatarUrl: string | null): Promise<void> {
  await hs.setAvatarUrl(userId, avatarUrl);
  for (const roomId of await hs.joinedRooms(userId)) {
    const member = (await hs.getState(roomId, EventType.Member, userId, userId)) ?? {};
    if (avatarOf(member) === avatarUrl) continue;
    const { avatar_url: _shown, ...rest } = member;
    await hs.sendMemberState(userId, roomId, {
      ...rest,
      membership: "join",
      ...(avatarUrl === null ? {} : { avatar_url: avatarUrl }),
    });
  }
}

/** The avatar a member event shows; an empty string (a cleared avatar) is none. */
const avatarOf = (member: Record<string, unknown>): string | null =>
  typeof member.avatar_url === "string" && member.avatar_url !== "" ? member.avatar_url : null;
