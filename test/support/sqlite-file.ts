// A migrated SQLite database in a folder of its own, for unit tests of one store on a real database.
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { migrate } from "../../src/db/migrations.ts";
import { openDatabase, type Db } from "../../src/db/client.ts";

export async function migratedSqlite(prefix: string): Promise<{ db: Db; close: () => Promise<void> }> {
  const work = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const url = `file:${join(work, "db.sqlite")}`;
  await migrate(url);
  const db = await openDatabase(url);
  return {
    db,
    close: async () => {
      await db.$disconnect();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
