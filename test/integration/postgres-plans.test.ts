// The driver's statements on real PostgreSQL run on generic plans, planned once per connection
// (src/db/driver-statements.ts) on connections opened at start, and no connection of the service plans parallel workers or JIT
// (src/db/postgres-session.ts): a list page read again and again, past the executions after which
// PostgreSQL settles on a plan, still reads exactly its ranks in either order.
import { test } from "node:test";
import assert from "node:assert/strict";
import { driverStatements, openDatabase } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrations.ts";
import { repositionPage } from "../../src/projection/position-store.ts";
import { CommentReadStore } from "../../src/features/comments/comment-read-store.ts";
import { freshDatabase } from "../support/harness.ts";

test("list pages on PostgreSQL's generic plans read their ranks, read after read", async () => {
  const database = await freshDatabase("postgres");
  try {
    await migrate(database.url);
    const db = await openDatabase(database.url);
    try {
      // The service opens the driver's pool at start (services.ts): its connections exist before any read.
      await driverStatements(db).open();
      const [connections] = (await db.$queryRawUnsafe(
        "SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      )) as Array<{ n: number }>;
      assert.ok(connections!.n >= 8, `${connections!.n} connections open`);
      const [mode] = await driverStatements(db).all<{ plan_cache_mode: string }>("SHOW plan_cache_mode", []);
      assert.equal(mode!.plan_cache_mode, "force_generic_plan");
      // Neither pool's statements may start parallel workers or JIT-compile (postgres-session.ts).
      const settings =
        "SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers";
      const expected = [{ jit: "off", workers: "0" }];
      assert.deepEqual(await driverStatements(db).all(settings, []), expected);
      assert.deepEqual(await db.$queryRawUnsafe(settings), expected);
      const page = { siteId: "g", pageSlug: "p" };
      await db.site.create({ data: { id: "g", source: "config" } });
      const row = (i: number) => ({
        eventId: `$g${String(i).padStart(2, "0")}`,
        roomId: "!g",
        ...page,
        sender: "@a:x",
        authorType: "matrix",
        content: "{}",
        // Runs of three equal timestamps: pages split them, and the event id orders them.
        originServerTs: BigInt(1000 + Math.floor((i + 1) / 3)),
      });
      await db.comment.createMany({ data: Array.from({ length: 45 }, (_, i) => row(i + 1)) });
      await repositionPage(db, "g", "p");
      await db.reaction.create({
        data: { eventId: "$r1", targetEventId: "$g01", roomId: "!g", sender: "@a:x", key: "👍", originServerTs: 2000n },
      });
      const store = new CommentReadStore(db);
      const ids = async (first: number, last: number, order: "asc" | "desc") =>
        (await store.page(page, first, last, order, null))!.comments.map((c) => c.eventId.slice(2)).join(",");
      // More reads than the pool has connections times PostgreSQL's five custom-plan trials.
      for (let i = 0; i < 50; i++) {
        const [asc, desc, past, unknown, viewer] = await Promise.all([
          ids(1, 3, "asc"),
          ids(41, 60, "desc"),
          ids(46, 60, "desc"),
          store.page({ siteId: "none", pageSlug: "p" }, 1, 20, "asc", null),
          store
            .page(page, 1, 3, "asc", "@a:x")
            .then((found) => found!.comments.map((c) => `${c.eventId.slice(2)}:${c.viewerKeys!.join("")}`).join(",")),
        ]);
        assert.deepEqual(
          [asc, desc, past, unknown, viewer],
          ["01,02,03", "05,04,03,02,01", "", null, "01:👍,02:,03:"],
          `read ${i + 1}`,
        );
      }
    } finally {
      await db.$disconnect();
    }
  } finally {
    await database.drop();
  }
});
