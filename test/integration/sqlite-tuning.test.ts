// Every SQLite connection of the service (Prisma's, and the driver's read and write connections,
// the reads' on their threads or on the event loop's) runs with the configured page cache and
// memory map (src/db/sqlite-tuning.ts), and without a configuration with the keys' defaults.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { driverStatements, openDatabase } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrations.ts";
import { buildConfig } from "../../src/config/config.ts";
import type { SqliteTuning } from "../../src/db/sqlite-tuning.ts";

type Pragmas = { cache_size: number | bigint; mmap_size: number | bigint };

async function pragmasOf(url: string, tuning?: SqliteTuning) {
  const db = await openDatabase(url, tuning);
  try {
    const prisma = {
      cache: Number(((await db.$queryRawUnsafe("PRAGMA cache_size")) as Array<{ cache_size: bigint }>)[0]!.cache_size),
      mmap: Number(((await db.$queryRawUnsafe("PRAGMA mmap_size")) as Array<{ mmap_size: bigint }>)[0]!.mmap_size),
    };
    const driver = driverStatements(db);
    const [cache] = await driver.all<Pragmas>("PRAGMA cache_size", []);
    const [mmap] = await driver.all<Pragmas>("PRAGMA mmap_size", []);
    // The write connection: a statement through run() answers its rows too.
    const { rows } = await driver.run<Pragmas>("PRAGMA mmap_size", []);
    return {
      prisma,
      reads: { cache: Number(cache!.cache_size), mmap: Number(mmap!.mmap_size) },
      writes: { mmap: Number(rows[0]!.mmap_size) },
    };
  } finally {
    await db.$disconnect();
  }
}

test("SQLite connections get the configured page cache and memory map", async () => {
  const work = mkdtempSync(join(tmpdir(), "sqlite-tuning-"));
  try {
    const url = `file:${join(work, "db.sqlite")}`;
    await migrate(url);
    // Reads on the event loop's thread, and on three threads.
    for (const threads of [0, 3]) {
      const config = buildConfig({
        database: { url, sqlite_cache_mb: 8, sqlite_mmap_mb: 256, sqlite_read_threads: threads },
        matrix: { as_token: "as-token", hs_token: "hs-token" },
      });
      assert.deepEqual(
        await pragmasOf(url, config.database),
        {
          prisma: { cache: -8 * 1024, mmap: 256 * 2 ** 20 },
          reads: { cache: -8 * 1024, mmap: 256 * 2 ** 20 },
          writes: { mmap: 256 * 2 ** 20 },
        },
        `${threads} read threads`,
      );
    }
    // The defaults: 32 MiB and 2,000 MiB (the bundled SQLite caps the map at 2 GiB).
    assert.deepEqual(await pragmasOf(url), {
      prisma: { cache: -32 * 1024, mmap: 2000 * 2 ** 20 },
      reads: { cache: -32 * 1024, mmap: 2000 * 2 ** 20 },
      writes: { mmap: 2000 * 2 ** 20 },
    });
    assert.throws(
      () =>
        buildConfig({ database: { url, sqlite_mmap_mb: -1 }, matrix: { as_token: "as-token", hs_token: "hs-token" } }),
      /database.sqlite_mmap_mb/,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
