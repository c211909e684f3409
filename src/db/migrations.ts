// The project's own migration runner. Each folder in prisma/migrations holds the SQL for both
// providers (made with `prisma migrate diff`, see src/cli/create-migration.ts) and a snapshot
// of the source schema it brings the database to. Prisma's own `migrate deploy` cannot run
// against PostgreSQL here (prisma/orm#27403), so the service applies the SQL itself, in order,
// each migration in one transaction, recorded in _service_migrations.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { providerOf, sqlitePath, type Provider } from "./database-url.ts";

export const MIGRATIONS_DIR = resolve(import.meta.dirname, "../../prisma/migrations");

export interface Migration {
  name: string;
  sql: string;
}

export function listMigrations(provider: Provider, dir = MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name, `${provider}.sql`), "utf8") }));
}

const LEDGER = `CREATE TABLE IF NOT EXISTS "_service_migrations" ("name" TEXT PRIMARY KEY, "applied_at" TEXT NOT NULL)`;

/** Applies pending migrations; returns the names applied. Safe to run on every start. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  const provider = providerOf(databaseUrl);
  const migrations = listMigrations(provider);
  return provider === "sqlite" ? migrateSqlite(databaseUrl, migrations) : migratePostgres(databaseUrl, migrations);
}

function migrateSqlite(url: string, migrations: Migration[]): string[] {
  const db = new Database(sqlitePath(url));
  try {
    db.pragma("journal_mode = WAL");
    db.exec(LEDGER);
    const done = new Set(db.prepare(`SELECT "name" FROM "_service_migrations"`).pluck().all() as string[]);
    const applied: string[] = [];
    for (const m of migrations.filter((m) => !done.has(m.name))) {
      db.transaction(() => {
        db.exec(m.sql);
        db.prepare(`INSERT INTO "_service_migrations" ("name", "applied_at") VALUES (?, ?)`).run(
          m.name,
          new Date().toISOString(),
        );
      }).immediate();
      applied.push(m.name);
    }
    return applied;
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Serializes concurrent starts of several instances on one database.
    await client.query("SELECT pg_advisory_lock(7253001)");
    await client.query(LEDGER);
    const done = new Set(
      (await client.query(`SELECT "name" FROM "_service_migrations"`)).rows.map((r) => r.name as string),
    );
    const applied: string[] = [];
    for (const m of migrations.filter((m) => !done.has(m.name))) {
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(`INSERT INTO "_service_migrations" ("name", "applied_at") VALUES ($1, $2)`, [
          m.name,
          new Date().toISOString(),
        ]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
    return applied;
  } finally {
    await client.end();
  }
}
