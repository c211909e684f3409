// Comment positions (src/projection/position-store.ts) on a real SQLite database, and the list
// page over them (src/features/comments/comment-read-store.ts): whatever order comments arrive
// in, positions are the list order and a page reads exactly the rows of its ranks.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "../../src/db/client.ts";
import { migratedSqlite } from "../support/sqlite-file.ts";
import { placeComment, repositionPage, sortsBefore, type PlacedComment } from "../../src/projection/position-store.ts";
import { rankWindow } from "../../src/core/pagination.ts";
import { CommentReadStore } from "../../src/features/comments/comment-read-store.ts";

describe("rankWindow", () => {
  test("a page's ranks, whatever the list's length", () => {
    assert.deepEqual(rankWindow(1, 20), { first: 1, last: 20 });
    assert.deepEqual(rankWindow(3, 20), { first: 41, last: 60 });
  });
});

describe("comment positions", () => {
  let db: Db;
  let close: () => Promise<void>;
  before(async () => {
    ({ db, close } = await migratedSqlite("positions"));
  });
  after(() => close());

  const listed = async (siteId: string, pageSlug: string) =>
    (await db.commentPosition.findMany({ where: { siteId, pageSlug }, orderBy: { position: "asc" } })).map((p) => [
      p.position,
      p.eventId,
    ]);
  const expected = (placed: PlacedComment[]) =>
    [...placed].sort((a, b) => (sortsBefore(a, b) ? -1 : sortsBefore(b, a) ? 1 : 0)).map((c, i) => [i + 1, c.eventId]);

  test("out-of-order arrival (older timestamps, equal timestamps) keeps positions in list order", async () => {
    // A deterministic shuffle of timestamps with ties, so late and equal ones both occur.
    const comments: PlacedComment[] = Array.from({ length: 60 }, (_, i) => ({
      eventId: `$e${String((i * 37) % 60).padStart(2, "0")}`,
      siteId: "s",
      pageSlug: "p",
      originServerTs: BigInt(1000 + ((i * 23) % 17)),
    }));
    const placed: PlacedComment[] = [];
    for (const comment of comments) {
      await db.$transaction((tx) => placeComment(tx, comment));
      placed.push(comment);
      assert.deepEqual(await listed("s", "p"), expected(placed));
    }
    assert.equal(
      (await db.pageCommentCount.findUnique({ where: { siteId_pageSlug: { siteId: "s", pageSlug: "p" } } }))?.count,
      60,
    );
    // Another page is numbered apart.
    await db.$transaction((tx) =>
      placeComment(tx, { eventId: "$other", siteId: "s", pageSlug: "q", originServerTs: 1n }),
    );
    assert.deepEqual(await listed("s", "q"), [[1, "$other"]]);
    assert.deepEqual(await listed("s", "p"), expected(placed));
  });

  test("repositionPage numbers a page from its Comment rows, and forgets an emptied page", async () => {
    const page = { siteId: "r", pageSlug: "p" };
    const row = (eventId: string, ts: number) => ({
      eventId,
      roomId: "!r",
      ...page,
      sender: "@a:x",
      authorType: "matrix",
      content: "{}",
      originServerTs: BigInt(ts),
    });
    await db.site.create({ data: { id: "r", source: "config" } });
    await db.comment.createMany({ data: [row("$b", 5), row("$a", 5), row("$c", 1)] });
    await repositionPage(db, "r", "p");
    assert.deepEqual(await listed("r", "p"), [
      [1, "$c"],
      [2, "$a"],
      [3, "$b"],
    ]);
    assert.equal((await db.pageCommentCount.findUnique({ where: { siteId_pageSlug: page } }))?.count, 3);
    await db.comment.deleteMany({ where: page });
    await repositionPage(db, "r", "p");
    assert.deepEqual(await listed("r", "p"), []);
    assert.equal(await db.pageCommentCount.findUnique({ where: { siteId_pageSlug: page } }), null);
  });

  test("a list page is the comments of its ranks, counted from the newest in desc order", async () => {
    const page = { siteId: "w", pageSlug: "p" };
    await db.site.create({ data: { id: "w", source: "config" } });
    const store = new CommentReadStore(db);
    assert.deepEqual(
      await store.page(page, 1, 20, "asc", null),
      { total: 0, comments: [], roomState: { powerLevels: null, pinnedEvents: null } },
      "a registered site without comments",
    );
    // The page room's power levels and pinned events come with the page: the newest active room's.
    const state = (roomId: string, type: string, content: unknown) =>
      db.roomState.create({
        data: {
          roomId,
          type,
          stateKey: "",
          eventId: `$${roomId}${type}`,
          originServerTs: 1n,
          content: JSON.stringify(content),
        },
      });
    await db.room.create({ data: { roomId: "!old:x", ...page, roomVersion: "12", createdAt: new Date(1000) } });
    await db.room.create({ data: { roomId: "!new:x", ...page, roomVersion: "12", createdAt: new Date(2000) } });
    await db.room.create({ data: { roomId: "!gone:x", ...page, roomVersion: "12", state: "superseded" } });
    for (const roomId of ["!old:x", "!gone:x"]) await state(roomId, "m.room.pinned_events", { pinned: [roomId] });
    await state("!new:x", "m.room.power_levels", { events_default: 50 });
    await state("!new:x", "m.room.pinned_events", { pinned: ["$a"] });
    assert.deepEqual((await store.page(page, 1, 20, "desc", null))!.roomState, {
      powerLevels: JSON.stringify({ events_default: 50 }),
      pinnedEvents: JSON.stringify({ pinned: ["$a"] }),
    });
    assert.equal(
      await store.page({ siteId: "unknown", pageSlug: "p" }, 1, 20, "asc", null),
      null,
      "an unregistered site",
    );
    const row = (i: number) => ({
      eventId: `$w${String(i).padStart(2, "0")}`,
      roomId: "!w",
      ...page,
      sender: "@a:x",
      authorType: "matrix",
      content: "{}",
      originServerTs: BigInt(1000 + i),
    });
    await db.comment.createMany({ data: Array.from({ length: 45 }, (_, i) => row(i + 1)) });
    await db.roomMember.create({
      data: { roomId: "!w", userId: "@a:x", membership: "join", displayName: "A", avatarUrl: null },
    });
    await repositionPage(db, "w", "p");
    const ids = async (first: number, last: number, order: "asc" | "desc") => {
      const found = await store.page(page, first, last, order, null);
      assert.equal(found?.total, 45);
      return found!.comments.map((c) => c.eventId.slice(2)).join(",");
    };
    assert.equal(await ids(1, 3, "asc"), "01,02,03");
    assert.equal(await ids(41, 60, "asc"), "41,42,43,44,45");
    assert.equal(await ids(61, 80, "asc"), "");
    assert.equal(await ids(1, 3, "desc"), "45,44,43");
    assert.equal(await ids(41, 60, "desc"), "05,04,03,02,01");
    assert.equal(await ids(46, 60, "desc"), "");
    const [first] = (await store.page(page, 1, 1, "asc", null))!.comments;
    assert.deepEqual(
      first!.member,
      { membership: "join", displayName: "A", avatarUrl: null },
      "with its author's room profile",
    );
    assert.equal(first!.originServerTs, 1001n);
    assert.equal(first!.viewerKeys, null, "an anonymous read has no viewer keys");
  });

  test("pages that split a run of equal timestamps read each comment once, in list order", async () => {
    // The read takes a page's comments as one range of (originServerTs, eventId) between its first
    // and last ranks' keys: ties at either end must be cut by the event id. Another page's
    // comments share the timestamps.
    await db.site.create({ data: { id: "t", source: "config" } });
    const store = new CommentReadStore(db);
    const comment = (pageSlug: string, i: number) => ({
      eventId: `$${((i * 7919) % 1000).toString(36)}${pageSlug}`,
      roomId: "!t",
      siteId: "t",
      pageSlug,
      sender: "@a:x",
      authorType: "matrix",
      content: "{}",
      originServerTs: BigInt(1000 + Math.floor(i / 5)),
    });
    const rows = Array.from({ length: 23 }, (_, i) => comment("p", i));
    await db.comment.createMany({ data: [...rows, ...Array.from({ length: 9 }, (_, i) => comment("q", i))] });
    await repositionPage(db, "t", "p");
    await repositionPage(db, "t", "q");
    const listOrder = expected(rows).map(([, eventId]) => eventId);
    for (const perPage of [1, 2, 3, 4, 7]) {
      for (let first = 1; first <= 25; first += perPage) {
        const last = first + perPage - 1;
        for (const order of ["asc", "desc"] as const) {
          const found = await store.page({ siteId: "t", pageSlug: "p" }, first, last, order, null);
          const want = (order === "asc" ? listOrder : [...listOrder].reverse()).slice(first - 1, last);
          assert.deepEqual(
            found!.comments.map((c) => c.eventId),
            want,
            `${order} ranks ${first}..${last}`,
          );
        }
      }
    }
  });

  test("a viewer's page carries each comment once, with the keys the viewer reacted with", async () => {
    const page = { siteId: "v", pageSlug: "p" };
    await db.site.create({ data: { id: "v", source: "config" } });
    const row = (i: number) => ({
      eventId: `$v${i}`,
      roomId: "!v",
      ...page,
      sender: "@a:x",
      authorType: "matrix",
      content: "{}",
      originServerTs: BigInt(1000 + i),
    });
    await db.comment.createMany({ data: [1, 2, 3, 4].map(row) });
    await repositionPage(db, "v", "p");
    const reaction = (n: number, target: number, sender: string, key: string) => ({
      eventId: `$r${n}`,
      targetEventId: `$v${target}`,
      roomId: "!v",
      sender,
      key,
      originServerTs: BigInt(2000 + n),
    });
    await db.reaction.createMany({
      data: [
        reaction(1, 1, "@me:x", "👍"),
        reaction(2, 1, "@me:x", "🎉"),
        reaction(3, 1, "@b:x", "👍"),
        reaction(4, 2, "@b:x", "👍"),
        reaction(5, 3, "@me:x", "❤️"),
      ],
    });
    const store = new CommentReadStore(db);
    const keys = async (order: "asc" | "desc", viewer: string | null) =>
      (await store.page(page, 1, 20, order, viewer))!.comments.map((c) => [
        c.eventId,
        c.viewerKeys === null ? null : [...c.viewerKeys].sort(),
      ]);
    assert.deepEqual(await keys("asc", "@me:x"), [
      ["$v1", ["🎉", "👍"]],
      ["$v2", []],
      ["$v3", ["❤️"]],
      ["$v4", []],
    ]);
    assert.deepEqual(await keys("desc", "@me:x"), [
      ["$v4", []],
      ["$v3", ["❤️"]],
      ["$v2", []],
      ["$v1", ["🎉", "👍"]],
    ]);
    assert.deepEqual(await keys("asc", "@nobody:x"), [
      ["$v1", []],
      ["$v2", []],
      ["$v3", []],
      ["$v4", []],
    ]);
    assert.deepEqual(await keys("asc", null), [
      ["$v1", null],
      ["$v2", null],
      ["$v3", null],
      ["$v4", null],
    ]);
    const [second] = (await store.page(page, 2, 2, "asc", "@me:x"))!.comments;
    assert.deepEqual(
      [second!.eventId, second!.viewerKeys],
      ["$v2", []],
      "a page of one comment the viewer did not react to",
    );
    assert.equal((await store.page(page, 1, 20, "asc", "@me:x"))!.total, 4);
  });
});
