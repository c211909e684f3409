// Hot reads straight on the database driver, behind the stores that need them: a statement is
// prepared once and reused across requests (better-sqlite3 statements; named PostgreSQL
// statements, prepared once per pooled connection). On the comment list read, Prisma's per-query
// compile and its driver adapter cost far more than the queries (docs/benchmarks.md), so the
// stores of that path run their few fixed statements here. SQL is written once, with
// PostgreSQL's `$1` placeholders (bound in their order for SQLite) and the quoted model and field
// names both schemas share. Rows come back with the drivers' plain values: integers as numbers
// (SQLite) or text (PostgreSQL BIGINT), timestamps as text (ISO 8601 on SQLite, PostgreSQL's own
// form in UTC); the stores map them to their types (`asDate`, `asBigInt`).
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { providerOf, sqlitePath } from "./database-url.ts";

export interface DriverReads {
  /** Runs a read-only statement (prepared on first use); resolves its rows. */
  all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** Distinct statement texts kept prepared; the hot statements are few, variable arity adds a handful. */
const MAX_STATEMENTS = 256;
/** Pooled connections for these reads (PostgreSQL), beside the Prisma client's own pool. */
const POOL_SIZE = 8;

export function openDriverReads(url: string): DriverReads {
  return providerOf(url) === "postgres" ? new PostgresReads(url) : new SqliteReads(sqlitePath(url));
}

/** A statement with `?` placeholders, and which parameter each binds (better-sqlite3 binds `?NNN` as anonymous ones). */
interface SqliteStatement {
  statement: Database.Statement;
  binds: number[];
}

class SqliteReads implements DriverReads {
  private connection: Database.Database | null = null;
  private readonly statements = new Map<string, SqliteStatement>();

  // A connection of its own (WAL: it reads what the writers committed); an in-memory database
  // is private to its connection, so it cannot have one.
  constructor(private readonly path: string) {
    if (path === ":memory:") throw new Error("driver reads need a database file, not :memory:");
  }

  async all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      this.connection ??= new Database(this.path, { timeout: 10_000 });
      prepared = { statement: this.connection.prepare(sql.replace(/\$\d+/g, "?")), binds: [...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]) - 1) };
      if (this.statements.size >= MAX_STATEMENTS) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, prepared);
    }
    return prepared.statement.all(...prepared.binds.map((i) => params[i])) as Row[];
  }

  async close(): Promise<void> {
    this.statements.clear();
    this.connection?.close();
    this.connection = null;
  }
}

/** Timestamps (without time zone, as Prisma stores them: UTC) and BIGINT as their text; the stores convert. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.TIMESTAMP || oid === pg.types.builtins.INT8 ? (value: string) => value : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

class PostgresReads implements DriverReads {
  private readonly pool: pg.Pool;
  private readonly names = new Map<string, string>();

  constructor(url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, idleTimeoutMillis: 10_000, allowExitOnIdle: true, types });
    // An idle connection's failure (a restart, a dropped database) only closes it.
    this.pool.on("error", () => {});
  }

  async all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    let name = this.names.get(sql);
    if (name === undefined) {
      name = `r${createHash("sha256").update(sql).digest("hex").slice(0, 20)}`;
      if (this.names.size >= MAX_STATEMENTS) this.names.delete(this.names.keys().next().value!);
      this.names.set(sql, name);
    }
    const result = await this.pool.query({ name, text: sql, values: params as unknown[] });
    return result.rows as Row[];
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** A timestamp column's value from either driver. */
export const asDate = (value: string | Date | null): Date | null =>
  value === null ? null : value instanceof Date ? value : new Date(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value.replace(" ", "T")}Z`);

/** A BIGINT column's value from either driver. */
export const asBigInt = (value: number | string | bigint): bigint => BigInt(value);
