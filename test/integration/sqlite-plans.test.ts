// The list read's plan on real SQLite (a freshly migrated database, as the service runs it through
// its driver statements): the page's ranks and their comments' ids, and the page's newest room,
// come from covering indexes, so a read of a page no recent read touched visits neither table
// (a page read fewer each, from disk when the page is cold: docs/benchmarks.md), and the room is
// found in index order, without a sort.
import { test } from "node:test";
import assert from "node:assert/strict";
import { driverStatements, openDatabase } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrations.ts";
import { pageStatement } from "../../src/features/comments/comment-read-store.ts";
import { freshDatabase } from "../support/harness.ts";

test("the list read finds ranks and the page's room in covering indexes on SQLite", async () => {
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
      assert.deepEqual(
        uses("p"),
        [
          `SEARCH p USING COVERING INDEX CommentPosition_siteId_pageSlug_position_eventId_idx (siteId=? AND pageSlug=? AND position>? AND position<?) LEFT-JOIN`,
        ],
        order,
      );
      const room = uses("Room");
      assert.equal(room.length, 2, order);
      for (const detail of room)
        assert.match(detail, /^SEARCH Room USING COVERING INDEX Room_siteId_pageSlug_state_createdAt_roomId_idx /);
      assert.ok(!plan.some((detail) => /TEMP B-TREE/.test(detail)), `${order}: ${plan.join("; ")}`);
    }
  } finally {
    await db.$disconnect();
    await database.drop();
  }
});
