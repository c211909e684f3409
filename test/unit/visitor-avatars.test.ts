// applyAvatar against a fake homeserver: the rooms a profile change did not reach get the
// member event from the service; rooms already showing it are left alone.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Homeserver } from "../../src/matrix/homeserver.ts";
import { applyAvatar } from "../../src/features/visitors/avatars.ts";

const USER = "@_service_v_1:hs";

/** A homeserver whose rooms hold the given member contents; `propagates` mimics Synapse updating them on a profile change. */
function fakeHomeserver(rooms: Record<string, Record<string, unknown>>, propagates: boolean) {
  const calls: string[] = [];
  const hs = {
    async setAvatarUrl(userId: string, url: string | null) {
      calls.push(`profile ${userId} ${url}`);
      if (!propagates) return;
      for (const member of Object.values(rooms)) {
        if (url === null) delete member.avatar_url;
        else member.avatar_url = url;
      }
    },
    joinedRooms: async () => Object.keys(rooms),
    getState: async (roomId: string) => ({ ...rooms[roomId] }),
    async sendMemberState(userId: string, roomId: string, content: Record<string, unknown>) {
      calls.push(`member ${userId} ${roomId} ${JSON.stringify(content)}`);
      rooms[roomId] = content;
    },
  };
  return { hs: hs as unknown as Homeserver, calls };
}

describe("applyAvatar", () => {
  test("a homeserver that does not propagate: the service sends each room's member event, keeping the rest of it", async () => {
    const rooms = {
      "!a": { membership: "join", displayname: "Alice" },
      "!b": { membership: "join", displayname: "Alice", avatar_url: "mxc://hs/old" },
    };
    const { hs, calls } = fakeHomeserver(rooms, false);
    await applyAvatar(hs, USER, "mxc://hs/new");
    assert.deepEqual(calls, [
      `profile ${USER} mxc://hs/new`,
      `member ${USER} !a {"membership":"join","displayname":"Alice","avatar_url":"mxc://hs/new"}`,
      `member ${USER} !b {"membership":"join","displayname":"Alice","avatar_url":"mxc://hs/new"}`,
    ]);
  });

  test("removal clears the avatar from the member events", async () => {
    const rooms = {
      "!a": { membership: "join", displayname: "Alice", avatar_url: "mxc://hs/old" },
      "!b": { membership: "join", avatar_url: "" },
    };
    const { hs, calls } = fakeHomeserver(rooms, false);
    await applyAvatar(hs, USER, null);
    assert.deepEqual(
      calls,
      [`profile ${USER} null`, `member ${USER} !a {"membership":"join","displayname":"Alice"}`],
      "an empty avatar_url is none already",
    );
  });

  test("a homeserver that propagates (Synapse): nothing more is sent", async () => {
    const { hs, calls } = fakeHomeserver(
      { "!a": { membership: "join" }, "!b": { membership: "join", avatar_url: "mxc://hs/old" } },
      true,
    );
    await applyAvatar(hs, USER, "mxc://hs/new");
    assert.deepEqual(calls, [`profile ${USER} mxc://hs/new`]);
  });
});
