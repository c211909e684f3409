// Backfill discovery (src/features/backfill/discovery.ts) over a stand-in for the homeserver's
// joined rooms and their state: which Spaces are sites, which rooms are which page, how an
// upgraded page's rooms are chained.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Homeserver } from "../../src/matrix/homeserver.ts";
import { MatrixNames } from "../../src/matrix/names.ts";
import { discoverSites } from "../../src/features/backfill/discovery.ts";

type State = Array<{ type: string; state_key: string; content: Record<string, unknown> }>;

const names = new MatrixNames("_service_", "hs.example");
const create = (content: Record<string, unknown> = {}) => ({
  type: "m.room.create",
  state_key: "",
  content: { room_version: "12", ...content },
});
const alias = (alias: string, alt: string[] = []) => ({
  type: "m.room.canonical_alias",
  state_key: "",
  content: { alias, alt_aliases: alt },
});
const child = (roomId: string, via = ["hs.example"]) => ({
  type: "m.space.child",
  state_key: roomId,
  content: { via },
});

/** The homeserver as the bot sees it: `rooms` joined, any other room unreadable. */
function homeserver(rooms: Record<string, State>, calls: string[] = []): Homeserver {
  const refused = (errcode: string, statusCode: number) => Object.assign(new Error(errcode), { errcode, statusCode });
  return {
    names,
    joinedRooms: async () => {
      calls.push("joinedRooms");
      return Object.keys(rooms);
    },
    roomState: async (roomId: string) => {
      if (!rooms[roomId]) throw refused("M_FORBIDDEN", 403);
      return rooms[roomId];
    },
    resolveAlias: async (alias: string) => {
      const found = Object.entries(rooms).find(([, state]) =>
        state.some((e) => e.type === "m.room.canonical_alias" && e.content.alias === alias),
      );
      if (!found) throw refused("M_NOT_FOUND", 404);
      return found[0];
    },
  } as unknown as Homeserver;
}

const rooms: Record<string, State> = {
  "!space-blog": [
    create({ type: "m.space" }),
    alias("#_service_blog:hs.example"),
    child("!hello"),
    child("!named"),
    child("!old"),
    child("!gone", []),
  ],
  "!space-shop": [create({ type: "m.space" }), alias("#_service_shop:hs.example")],
  // A page upgraded twice: the alias moved to the newest room.
  "!old": [
    create({ room_version: "10" }),
    { type: "m.room.tombstone", state_key: "", content: { replacement_room: "!mid" } },
  ],
  "!mid": [
    create({ room_version: "11", predecessor: { room_id: "!old" } }),
    { type: "m.room.tombstone", state_key: "", content: { replacement_room: "!new" } },
  ],
  "!new": [create({ predecessor: { room_id: "!mid" } }), alias("#_service_blog_upgraded:hs.example")],
  "!hello": [create(), alias("#_service_blog_hello:hs.example")],
  // A Space child without an alias is known by the name provisioning gave it.
  "!named": [create(), { type: "m.room.name", state_key: "", content: { name: "blog/named" } }],
  "!gone": [create(), { type: "m.room.name", state_key: "", content: { name: "blog/gone" } }],
  "!cart": [create(), alias("#_service_shop_cart:hs.example")],
  // Neither a site's nor a page's: a DM, a foreign alias, another server's namesake.
  "!dm": [create()],
  "!foreign": [create(), alias("#general:hs.example")],
  "!elsewhere": [create(), alias("#_service_blog_hello:other.example")],
};

test("sites are the Spaces with a service alias; pages by alias or a Space child's name; upgrades chained oldest first", async () => {
  const plans = await discoverSites(homeserver(rooms), null);
  assert.deepEqual(plans, [
    {
      siteId: "blog",
      spaceRoomId: "!space-blog",
      pages: [
        { pageSlug: "hello", rooms: [{ roomId: "!hello", roomVersion: "12" }] },
        { pageSlug: "named", rooms: [{ roomId: "!named", roomVersion: "12" }] },
        {
          pageSlug: "upgraded",
          rooms: [
            { roomId: "!old", roomVersion: "10" },
            { roomId: "!mid", roomVersion: "11" },
            { roomId: "!new", roomVersion: "12" },
          ],
        },
      ],
    },
    {
      siteId: "shop",
      spaceRoomId: "!space-shop",
      pages: [{ pageSlug: "cart", rooms: [{ roomId: "!cart", roomVersion: "12" }] }],
    },
  ]);
});

test("one site: its Space by alias, its children and their upgrades' rooms, without reading every joined room", async () => {
  const calls: string[] = [];
  const [blog, ...others] = await discoverSites(homeserver(rooms, calls), "blog");
  assert.deepEqual(others, []);
  assert.deepEqual(blog, (await discoverSites(homeserver(rooms), null))[0], "what the full run finds of it");
  assert.deepEqual(calls, []);
  assert.deepEqual(await discoverSites(homeserver(rooms), "nowhere"), []);
});

test("rooms are chained by predecessors where a tombstone names a room the bot never joined; the page alias may be on any of them", async () => {
  const partial = {
    ...rooms,
    "!new": [create({ predecessor: { room_id: "!mid" } })],
    "!mid": [
      ...rooms["!mid"]!.slice(0, 1),
      { type: "m.room.tombstone", state_key: "", content: { replacement_room: "!unjoined" } },
    ],
    "!old": [...rooms["!old"]!, alias("#_service_blog_upgraded:hs.example")],
  };
  const blog = (await discoverSites(homeserver(partial), null))[0]!;
  assert.deepEqual(
    blog.pages.find((p) => p.pageSlug === "upgraded")?.rooms.map((r) => r.roomId),
    ["!old", "!mid", "!new"],
    "!new names !mid its predecessor",
  );
  const alone = (await discoverSites(homeserver(partial), "blog"))[0]!;
  assert.deepEqual(
    alone.pages.find((p) => p.pageSlug === "upgraded")?.rooms.map((r) => r.roomId),
    ["!old", "!mid"],
    "one site's run follows links from the Space only",
  );
});
