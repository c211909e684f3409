// Comment positions (src/projection/position-store.ts) on a real SQLite database, and the list
// window over them (src/core/pagination.ts): whatever order comments arrive in, positions are
// the list order and a window reads exactly the page's rows.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { migrate } from "../../src/db/migrations.ts";
import { openDatabase, type Db } from "../../src/db/client.ts";
import { placeComment, repositionPage, sortsBefore, type PlacedComment } from "../../src/projection/position-store.ts";
import { positionWindow } from "../../src/core/pagination.ts";

describe("positionWindow", () => {
  test("ascending pages", () => {
    assert.deepEqual(positionWindow(45, 1, 20, "asc"), { from: 1, to: 20 });
    assert.deepEqual(positionWindow(45, 3, 20, "asc"), { from: 41, to: 45 });
    assert.equal(positionWindow(45, 4, 20, "asc"), null);
    assert.equal(positionWindow(0, 1, 20, "asc"), null);
  });
  test("descending pages count from the newest", () => {
    assert.deepEqual(positionWindow(45, 1, 20, "desc"), { from: 26, to: 45 });
    assert.deepEqual(positionWindow(45, 3, 20, "desc"), { from: 1, to: 5 });
    assert.equal(positionWindow(40, 3, 20, "desc"), null);
    assert.deepEqual(positionWindow(40, 2, 20, "desc"), { from: 1, to: 20 });
  });
});

describe("comment positions", () => {
  const work = mkdtempSync(join(tmpdir(), "positions-"));
  let db: Db;
  before(async () => {
    const url = `file:${join(work, "db.sqlite")}`;
    await migrate(url);
    db = await openDatabase(url);
  });
  after(async () => {
    await db.$disconnect();
    rmSync(work, { recursive: true, force: true });
  });

  const listed = async (siteId: string, pageSlug: string) =>
    (await db.commentPosition.findMany({ where: { siteId, pageSlug }, orderBy: { position: "asc" } })).map((p) => [p.position, p.eventId]);
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
    assert.equal((await db.pageCommentCount.findUnique({ where: { siteId_pageSlug: { siteId: "s", pageSlug: "p" } } }))?.count, 60);
    // Another page is numbered apart.
    await db.$transaction((tx) => placeComment(tx, { eventId: "$other", siteId: "s", pageSlug: "q", originServerTs: 1n }));
    assert.deepEqual(await listed("s", "q"), [[1, "$other"]]);
    assert.deepEqual(await listed("s", "p"), expected(placed));
  });

  test("repositionPage numbers a page from its Comment rows, and forgets an emptied page", async () => {
    const page = { siteId: "r", pageSlug: "p" };
    const row = (eventId: string, ts: number) => ({ eventId, roomId: "!r", ...page, sender: "@a:x", authorType: "matrix", content: "{}", originServerTs: BigInt(ts) });
    await db.site.create({ data: { id: "r", source: "config" } });
    await db.comment.createMany({ data: [row("$b", 5), row("$a", 5), row("$c", 1)] });
    await repositionPage(db, "r", "p");
    assert.deepEqual(await listed("r", "p"), [[1, "$c"], [2, "$a"], [3, "$b"]]);
    assert.equal((await db.pageCommentCount.findUnique({ where: { siteId_pageSlug: page } }))?.count, 3);
    await db.comment.deleteMany({ where: page });
    await repositionPage(db, "r", "p");
    assert.deepEqual(await listed("r", "p"), []);
    assert.equal(await db.pageCommentCount.findUnique({ where: { siteId_pageSlug: page } }), null);
  });
});
