// The hot reads' driver statements (src/db/driver-reads.ts) on a real SQLite database: `$n`
// placeholders bind by number in any order and repeated, a statement sees what the Prisma client
// committed after it was prepared, and column values convert to the stores' types.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { migrate } from "../../src/db/migrations.ts";
import { driverReads, openDatabase, type Db } from "../../src/db/client.ts";
import { asBigInt, asDate } from "../../src/db/driver-reads.ts";

let work: string;
let db: Db;

before(async () => {
  work = mkdtempSync(join(tmpdir(), "driver-reads-"));
  const url = `file:${join(work, "db.sqlite")}`;
  await migrate(url);
  db = await openDatabase(url);
});

after(async () => {
  await db.$disconnect();
  rmSync(work, { recursive: true, force: true });
});

test("placeholders bind by their number, in any order and repeated", async () => {
  const [row] = await driverReads(db).all<{ a: string; b: string; c: string }>(`SELECT $2 AS "a", $1 AS "b", $2 || $1 AS "c"`, ["x", "y"]);
  assert.deepEqual({ ...row }, { a: "y", b: "x", c: "yx" });
});

test("a prepared statement reads what was committed after it was prepared", async () => {
  const status = (id: string) => driverReads(db).all<{ status: string }>(`SELECT "status" FROM "Site" WHERE "id" = $1`, [id]);
  assert.deepEqual(await status("s1"), []);
  await db.site.create({ data: { id: "s1", source: "config" } });
  assert.deepEqual((await status("s1")).map((r) => r.status), ["active"]);
  await db.site.update({ where: { id: "s1" }, data: { status: "retiring" } });
  assert.deepEqual((await status("s1")).map((r) => r.status), ["retiring"]);
});

test("timestamps and BIGINT values of either driver convert to Date and bigint", async () => {
  const [row] = await driverReads(db).all<{ createdAt: string }>(`SELECT "createdAt" FROM "Site" WHERE "id" = $1`, ["s1"]);
  const created = (await db.site.findUniqueOrThrow({ where: { id: "s1" } })).createdAt;
  assert.equal(asDate(row!.createdAt)!.getTime(), created.getTime());
  // PostgreSQL's text form of a timestamp without time zone (UTC, as Prisma stores it).
  assert.equal(asDate("2026-11-25 19:30:00.123")!.toISOString(), "2026-11-25T19:30:00.123Z");
  assert.equal(asDate("2026-11-25T19:30:00.123+00:00")!.toISOString(), "2026-11-25T19:30:00.123Z");
  assert.equal(asDate(null), null);
  assert.equal(asBigInt("1764099000123"), 1764099000123n);
  assert.equal(asBigInt(1764099000123), 1764099000123n);
});
