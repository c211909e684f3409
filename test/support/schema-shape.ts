// The structural shape of a database (tables, columns, indexes, foreign keys), to compare
// the schema migrations produce with the one the source schema describes.
import Database from "better-sqlite3";
import pg from "pg";

export function sqliteShape(statements: string[]): unknown {
  const db = new Database(":memory:");
  try {
    for (const sql of statements) db.exec(sql);
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      .pluck()
      .all() as string[];
    return tables.map((table) => ({
      table,
      columns: (db.pragma(`table_info("${table}")`) as Array<Record<string, unknown>>)
        .map(({ cid: _, ...c }) => c)
        .sort(byName),
      indexes: (db.pragma(`index_list("${table}")`) as Array<{ name: string; unique: number }>)
        .map((i) => ({
          name: i.name,
          unique: i.unique,
          columns: (db.pragma(`index_info("${i.name}")`) as Array<{ name: string }>).map((c) => c.name),
        }))
        .sort(byName),
      foreignKeys: (db.pragma(`foreign_key_list("${table}")`) as Array<Record<string, unknown>>).map(
        ({ id: _, seq: __, ...f }) => f,
      ),
    }));
  } finally {
    db.close();
  }
}

export async function postgresShape(url: string, statements: string[]): Promise<unknown> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
    const columns = await client.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name`,
    );
    const indexes = await client.query(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`,
    );
    const constraints = await client.query(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conname`,
    );
    return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows };
  } finally {
    await client.end();
  }
}

const byName = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.name).localeCompare(String(b.name));
