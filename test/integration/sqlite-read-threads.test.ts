// The driver's SQLite reads on threads of their own (database.sqlite_read_threads,
// src/db/sqlite-read-threads.ts), on real SQLite files: they answer as reads on the event loop's
// thread do; a slow read holds neither the event loop nor the reads behind it (on the event loop's
// thread it holds both: the control); an error comes back as the driver's; a thread that failed
// is started again; and threads keep a process alive only while it waits for a read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { driverStatements, openDatabase, type Db } from "../../src/db/client.ts";
import { SqliteReadThreads } from "../../src/db/sqlite-read-threads.ts";

const tuning = (threads: number) => ({ sqliteCacheMb: 8, sqliteMmapMb: 64, sqliteReadThreads: threads });

async function withDatabases(run: (url: string, work: string) => Promise<void>): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "sqlite-read-threads-"));
  try {
    const url = `file:${join(work, "db.sqlite")}`;
    const db = await openDatabase(url, tuning(0));
    try {
      const driver = driverStatements(db);
      await driver.run(`CREATE TABLE "T" ("id" INTEGER PRIMARY KEY, "name" TEXT, "at" TEXT, "score" REAL)`, []);
      const names = ["plain", "dé😀jà", null, "x".repeat(70_000)];
      for (const [i, name] of names.entries())
        await driver.run(`INSERT INTO "T" VALUES ($1, $2, $3, $4)`, [
          i + 1,
          name,
          new Date(Date.UTC(2026, 0, i + 1)),
          i / 3,
        ]);
    } finally {
      await db.$disconnect();
    }
    await run(url, work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function opened<T>(url: string, threads: number, use: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDatabase(url, tuning(threads));
  try {
    await driverStatements(db).open();
    return await use(db);
  } finally {
    await db.$disconnect();
  }
}

/** A statement that keeps SQLite busy for a while (about a second on the test machine). */
const SLOW = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1) SELECT count(*) AS "count" FROM n`;

test("reads on threads answer as reads on the event loop's thread", async () => {
  await withDatabases(async (url) => {
    // Parameters out of order and repeated, a Date bound as Prisma stores it, every column type.
    const sql = `SELECT "id", "name", "at", "score", $2 AS "echo" FROM "T" WHERE "at" >= $1 OR "name" = $2 ORDER BY "id"`;
    const params = [new Date(Date.UTC(2026, 0, 2)), "plain"];
    const onLoop = await opened(url, 0, (db) => driverStatements(db).all(sql, params));
    const onThreads = await opened(url, 3, async (db) => {
      const driver = driverStatements(db);
      // Many at once, so every thread answers some (and the column names come once per statement).
      return Promise.all(Array.from({ length: 12 }, () => driver.all(sql, params)));
    });
    assert.equal(onLoop.length, 4);
    assert.equal((onLoop[3] as { name: string }).name.length, 70_000);
    for (const rows of onThreads) assert.deepEqual(rows, onLoop);
  });
});

test("a slow read on a thread holds neither the event loop nor the reads behind it", async () => {
  await withDatabases(async (url) => {
    const measure = (threads: number) =>
      opened(url, threads, async (db) => {
        const driver = driverStatements(db);
        let ticks = 0;
        const timer = setInterval(() => ticks++, 5);
        const order: string[] = [];
        const started = performance.now();
        const slow = driver.all(SLOW, [3_000_000]).then(() => order.push("slow"));
        // Yield once, so the slow read is under way before the fast one is asked for.
        await new Promise((resolve) => setImmediate(resolve));
        const fast = driver.all(`SELECT count(*) AS "count" FROM "T"`, []).then(() => order.push("fast"));
        await Promise.all([slow, fast]);
        const elapsed = performance.now() - started;
        clearInterval(timer);
        return { order, ticksPerSecond: (ticks / elapsed) * 1000, elapsed };
      });
    const onThreads = await measure(2);
    assert.deepEqual(onThreads.order, ["fast", "slow"]);
    assert.ok(onThreads.elapsed > 100, `the slow read took ${onThreads.elapsed.toFixed(0)} ms`);
    assert.ok(onThreads.ticksPerSecond > 50, `${onThreads.ticksPerSecond.toFixed(0)} timer ticks a second`);
    // The control: on the event loop's thread the slow read holds the timer and the fast read.
    const onLoop = await measure(0);
    assert.deepEqual(onLoop.order, ["slow", "fast"]);
    assert.ok(onLoop.ticksPerSecond < 20, `${onLoop.ticksPerSecond.toFixed(0)} timer ticks a second`);
  });
});

test("a read's error on a thread comes back as the driver's, and the thread reads on", async () => {
  await withDatabases(async (url) => {
    await opened(url, 1, async (db) => {
      const driver = driverStatements(db);
      await assert.rejects(driver.all(`SELECT "missing" FROM "T"`, []), (err: Error & { code?: string }) => {
        assert.equal(err.code, "SQLITE_ERROR");
        assert.match(err.message, /no such column: "?missing/);
        return true;
      });
      assert.deepEqual(await driver.all(`SELECT count(*) AS "count" FROM "T"`, []), [{ count: 4 }]);
    });
  });
});

test("a read thread that failed is started again on the next read", async () => {
  const work = mkdtempSync(join(tmpdir(), "sqlite-read-threads-"));
  const path = join(work, "later", "db.sqlite");
  const threads = new SqliteReadThreads({ path, pragmas: [], timeoutMs: 1000, maxStatements: 8, count: 1 });
  try {
    // The thread cannot open a database in a directory that does not exist: it fails, and so does the read.
    await assert.rejects(threads.read("SELECT 1 AS one", [], true), /directory does not exist/);
    mkdirSync(join(work, "later"));
    const { rows, columns } = await threads.read("SELECT 1 AS one", [], true);
    assert.deepEqual({ rows, columns }, { rows: [[1]], columns: ["one"] });
  } finally {
    await threads.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test("read threads keep a process alive while it waits for a read, and not once it is idle", async () => {
  await withDatabases(async (url) => {
    // A tool that reads and never closes its database: its awaited read is answered, then it exits.
    const script = `
      import { driverStatements, openDatabase } from ${JSON.stringify(new URL("../../src/db/client.ts", import.meta.url).href)};
      const db = await openDatabase(${JSON.stringify(url)}, ${JSON.stringify(tuning(2))});
      const rows = await driverStatements(db).all(${JSON.stringify(SLOW)}, [300000]);
      console.log(JSON.stringify(rows));
    `;
    const started = performance.now();
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.deepEqual(JSON.parse(output.trim()), [{ count: 300000 }]);
    assert.ok(performance.now() - started < 20_000);
  });
});
