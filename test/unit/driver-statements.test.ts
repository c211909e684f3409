// The hot reads' driver statements (src/db/driver-statements.ts) on a real SQLite database: `$n`
// placeholders bind by number in any order and repeated, a statement sees what the Prisma client
// committed after it was prepared, and column values convert to the stores' types; a write binds
// Dates as Prisma stores them and waits out a Prisma transaction without blocking the event loop.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { driverStatements, type Db } from "../../src/db/client.ts";
import { migratedSqlite } from "../support/sqlite-file.ts";
import { asBigInt, asDate } from "../../src/db/driver-statements.ts";

let db: Db;
let close: () => Promise<void>;

before(async () => {
  ({ db, close } = await migratedSqlite("driver-statements"));
});

after(() => close());

test("placeholders bind by their number, in any order and repeated", async () => {
  const [row] = await driverStatements(db).all<{ a: string; b: string; c: string }>(
    `SELECT $2 AS "a", $1 AS "b", $2 || $1 AS "c"`,
    ["x", "y"],
  );
  assert.deepEqual({ ...row }, { a: "y", b: "x", c: "yx" });
});

test("a prepared statement reads what was committed after it was prepared", async () => {
  const status = (id: string) =>
    driverStatements(db).all<{ status: string }>(`SELECT "status" FROM "Site" WHERE "id" = $1`, [id]);
  assert.deepEqual(await status("s1"), []);
  await db.site.create({ data: { id: "s1", source: "config" } });
  assert.deepEqual(
    (await status("s1")).map((r) => r.status),
    ["active"],
  );
  await db.site.update({ where: { id: "s1" }, data: { status: "retiring" } });
  assert.deepEqual(
    (await status("s1")).map((r) => r.status),
    ["retiring"],
  );
});

test("timestamps and BIGINT values of either driver convert to Date and bigint", async () => {
  const [row] = await driverStatements(db).all<{ createdAt: string }>(
    `SELECT "createdAt" FROM "Site" WHERE "id" = $1`,
    ["s1"],
  );
  const created = (await db.site.findUniqueOrThrow({ where: { id: "s1" } })).createdAt;
  assert.equal(asDate(row!.createdAt)!.getTime(), created.getTime());
  // PostgreSQL's text form of a timestamp without time zone (UTC, as Prisma stores it).
  assert.equal(asDate("2026-11-25 19:30:00.123")!.toISOString(), "2026-11-25T19:30:00.123Z");
  assert.equal(asDate("2026-11-25T19:30:00.123+00:00")!.toISOString(), "2026-11-25T19:30:00.123Z");
  assert.equal(asDate(null), null);
  assert.equal(asBigInt("1764099000123"), 1764099000123n);
  assert.equal(asBigInt(1764099000123), 1764099000123n);
});

test("a write binds a Date as Prisma stores it and counts the rows it changed", async () => {
  const at = new Date("2026-11-25T19:30:00.123Z");
  const { count } = await driverStatements(db).run(`UPDATE "Site" SET "updatedAt" = $2 WHERE "id" = $1`, ["s1", at]);
  assert.equal(count, 1);
  assert.equal((await db.site.findUniqueOrThrow({ where: { id: "s1" } })).updatedAt.getTime(), at.getTime());
  // Compared with what Prisma wrote, as text, it orders as the instants do.
  assert.equal(
    (
      await driverStatements(db).run(`UPDATE "Site" SET "status" = 'active' WHERE "id" = $1 AND "updatedAt" < $2`, [
        "s1",
        at,
      ])
    ).count,
    0,
  );
  const { rows } = await driverStatements(db).run<{ id: string }>(
    `UPDATE "Site" SET "status" = 'active' WHERE "updatedAt" <= $1 RETURNING "id"`,
    [at],
  );
  assert.deepEqual(
    rows.map((r) => r.id),
    ["s1"],
  );
});

test("a write waits, without blocking the event loop, while a Prisma transaction holds the database", async () => {
  let ticks = 0;
  const ticking = setInterval(() => ticks++, 1);
  try {
    let written = false;
    let write: Promise<unknown> = Promise.resolve();
    await db.$transaction(async (tx) => {
      await tx.site.update({ where: { id: "s1" }, data: { hmacSecret: "in-transaction" } });
      write = driverStatements(db)
        .run(`UPDATE "Site" SET "status" = 'retiring' WHERE "id" = $1`, ["s1"])
        .then(() => (written = true));
      // The transaction goes on awaiting while the write waits (a blocked loop would stall here for the busy timeout).
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(written, false);
      assert.ok(ticks > 5, `the event loop ran (${ticks} ticks)`);
      await tx.site.update({ where: { id: "s1" }, data: { hmacSecret: null } });
    });
    await write;
    const site = await db.site.findUniqueOrThrow({ where: { id: "s1" } });
    assert.deepEqual([site.status, site.hmacSecret], ["retiring", null]);
  } finally {
    clearInterval(ticking);
  }
});
