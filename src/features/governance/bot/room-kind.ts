// Which rooms the AS bot acts in (pure). Only an unencrypted room whose only members (joined or
// invited: whoever can read what the bot answers) are the bot and the sender is a DM; claim
// tokens and site data are handled there only.

export type RoomKind = "dm" | "encrypted" | "group";

export function classifyRoom(room: {
  encrypted: boolean;
  members: string[];
  botUserId: string;
  sender: string;
}): RoomKind {
  if (room.encrypted) return "encrypted";
  const members = new Set(room.members);
  const onlyThePair = members.size === 2 && members.has(room.botUserId) && members.has(room.sender);
  return onlyThePair ? "dm" : "group";
}
