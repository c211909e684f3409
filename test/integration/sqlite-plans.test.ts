// The list read's plan on real SQLite (a freshly migrated database, as the service runs it through
// its driver statements): the page's count, its first and last ranks with their comments' keys,
// and the page's newest room, come from covering indexes, and the comments between those keys
// from one range of the Comment index: a read of a page no recent read touched reads a few pages
// of the file, not one of the event id index per comment (docs/benchmarks.md), and the room is
// found in index order, without a sort.
import { test } from "node:test";
import assert from "node:assert/strict";
import { driverStatements, openDatabase } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrations.ts";
import { pageStatement } from "../../src/features/comments/comment-read-store.ts";
import { freshDatabase } from "../support/harness.ts";

test("the list read finds its ranks' keys and the page's room in covering indexes and its comments in one range on SQLite", async () => {
  const database = await freshDatabase("sqlite");
  await migrate(database.url);
  const db = await openDatabase(database.url);
  try {
    for (const order of ["asc", "desc"] as const) {
      const plan = (
        await driverStatements(db).all<{ detail: string }>(`EXPLAIN QUERY PLAN ${pageStatement(order)}`, [
          "site",
          "page",
          1,
          20,
        ])
      ).map((row) => row.detail);
      const uses = (table: string) => plan.filter((detail) => new RegExp(`^SEARCH ${table}\\b`).test(detail));
      // The range's first and last ranks with their keys, from the index alone.
      for (const end of ["lo", "hi"])
        assert.deepEqual(
          uses(end),
          [
            `SEARCH ${end} USING COVERING INDEX CommentPosition_siteId_pageSlug_position_originServerTs_eventId_idx (siteId=? AND pageSlug=? AND position=?) LEFT-JOIN`,
          ],
          order,
        );
      // The comments between them as one range of the page's index, not looked up one by one by id.
      assert.deepEqual(
        uses("c"),
        [
          "SEARCH c USING INDEX Comment_siteId_pageSlug_originServerTs_idx (siteId=? AND pageSlug=? AND originServerTs>? AND originServerTs<?) LEFT-JOIN",
        ],
        order,
      );
      // The count is the page's last position, from the end of the same index (no other table).
      const counts = uses("CommentPosition");
      assert.ok(counts.length > 0, order);
      for (const detail of counts)
        assert.equal(
          detail,
          "SEARCH CommentPosition USING COVERING INDEX CommentPosition_siteId_pageSlug_position_originServerTs_eventId_idx (siteId=? AND pageSlug=?)",
          order,
        );
      assert.deepEqual(
        plan.filter((detail) => /PageCommentCount/.test(detail)),
        [],
        order,
      );
      // The authors' profiles and the room's state are rows read in their key's B-tree (WITHOUT
      // ROWID tables, migration 0021), not found in an index and then the table.
      assert.deepEqual(uses("m"), ["SEARCH m USING PRIMARY KEY (roomId=? AND userId=?) LEFT-JOIN"], order);
      assert.deepEqual(
        uses("RoomState"),
        Array(2).fill("SEARCH RoomState USING PRIMARY KEY (roomId=? AND type=? AND stateKey=?)"),
        order,
      );
      const room = uses("Room");
      assert.equal(room.length, 2, order);
      for (const detail of room)
        assert.match(detail, /^SEARCH Room USING COVERING INDEX Room_siteId_pageSlug_state_createdAt_roomId_idx /);
      // The page's own rows are sorted (at most a page of them); nothing inside a subquery is.
      assert.deepEqual(
        plan.filter((detail) => /TEMP B-TREE/.test(detail)),
        ["USE TEMP B-TREE FOR ORDER BY"],
        `${order}: ${plan.join("; ")}`,
      );
    }
  } finally {
    await db.$disconnect();
    await database.drop();
  }
});
