// What makes a room a page's room in Matrix: the page alias points at it, it is linked into the
// site's Space both ways and carries the page's name. Each step is idempotent, so a crash
// anywhere is repaired by running them again.
import type { Homeserver } from "../../matrix/homeserver.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

export const pageRoomName = (siteId: string, pageSlug: string): string => `${siteId}/${pageSlug}`;

export async function linkPageRoom(
  hs: Homeserver,
  spaceId: string,
  siteId: string,
  pageSlug: string,
  roomId: string,
  replaces: string | null,
): Promise<void> {
  const server = hs.names.serverName;
  await hs.setAlias(hs.names.alias(hs.names.roomAliasLocalpart(siteId, pageSlug)), roomId);
  await hs.sendState(spaceId, EventType.SpaceChild, roomId, { via: [server] });
  if ((await hs.stateContent(roomId, EventType.SpaceParent, spaceId))?.canonical !== true) {
    await hs.sendState(roomId, EventType.SpaceParent, spaceId, { via: [server], canonical: true });
  }
  // An m.space.child without `via` is no link (Spaces spec): the replaced room leaves the Space.
  if (replaces !== null) await hs.sendState(spaceId, EventType.SpaceChild, replaces, {});
  const name = pageRoomName(siteId, pageSlug);
  if ((await hs.stateContent(roomId, EventType.Name))?.name !== name) await hs.setRoomName(roomId, name);
}
