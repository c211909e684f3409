// Hot statements straight on the database driver, behind the stores that need them: a statement is
// prepared once and reused across requests (better-sqlite3 statements; named PostgreSQL
// statements, prepared once per pooled connection). On the comment list read, Prisma's per-query
// compile and its driver adapter cost far more than the queries (docs/benchmarks.md), so the
// stores of that path run their few fixed statements here. SQL is written once, with
// PostgreSQL's `$1` placeholders (bound in their order for SQLite) and the quoted model and field
// names both schemas share. Rows come back with the drivers' plain values: integers as numbers
// (SQLite) or text (PostgreSQL BIGINT), timestamps as text (ISO 8601 on SQLite, PostgreSQL's own
// form in UTC); the stores map them to their types (`asDate`, `asBigInt`). A Date parameter binds
// as Prisma stores timestamps, so statements compare and write them alike.
//
// `run` writes, one statement committing on its own (the queue's claims and outcomes). On SQLite
// it has a connection of its own with no busy timeout: better-sqlite3 waits out a busy database
// synchronously, blocking the event loop, and so the Prisma interactive transaction holding the
// write lock across awaits could never finish; a busy write is retried after a pause instead.
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import pg from "pg";
import { providerOf, sqlitePath } from "./database-url.ts";
import { setUpSession } from "./postgres-session.ts";
import { SqliteReadThreads } from "./sqlite-read-threads.ts";
import { sqlitePragmas, type SqliteTuning } from "./sqlite-tuning.ts";
import { setBounded } from "../core/bounded-map.ts";

export interface DriverStatements {
  /** Runs a read-only statement (prepared on first use); resolves its rows. */
  all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]>;
  /** Runs a writing statement, committed on its own; resolves its rows (RETURNING) and how many rows it changed. */
  run<Row>(sql: string, params: readonly unknown[]): Promise<{ rows: Row[]; count: number }>;
  /** Opens the connections now (PostgreSQL's pool, kept open since), so the first requests after a start do not each wait for one. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** Distinct statement texts kept prepared; the hot statements are few, variable arity adds a handful. */
const MAX_STATEMENTS = 256;
/** Pooled connections for these statements (PostgreSQL), beside the Prisma client's own pool. */
const POOL_SIZE = 8;
/** How long a SQLite write retries while the database is busy: the Prisma client's busy timeout (client.ts). */
const BUSY_TIMEOUT_MS = 10_000;
const MAX_BUSY_PAUSE_MS = 20;

export function openDriverStatements(url: string, sqlite: SqliteTuning): DriverStatements {
  return providerOf(url) === "postgres" ? new PostgresStatements(url) : new SqliteStatements(sqlitePath(url), sqlite);
}

/** A statement with `?` placeholders, and which parameter each binds (better-sqlite3 binds `?NNN` as anonymous ones). */
interface SqliteStatement {
  statement: Database.Statement;
  binds: number[];
  /** A row from the raw (array) form (rowBuilder). */
  toRow: ((values: unknown[]) => unknown) | null;
}

/**
 * A function building a row object from a raw (array) row, as one object literal over the
 * statement's columns: both drivers build row objects field by field, slower than a literal.
 */
function rowBuilder(columns: string[]): (values: unknown[]) => unknown {
  const fields = columns.map((column, i) => `${JSON.stringify(column)}: values[${i}]`);
  return new Function("values", `return { ${fields.join(", ")} };`) as (values: unknown[]) => unknown;
}

/** A statement's SQLite text (`?` placeholders) and which parameter each placeholder binds (better-sqlite3 binds `?NNN` as anonymous ones). */
function sqliteForm(sql: string): { text: string; binds: number[] } {
  return { text: sql.replace(/\$\d+/g, "?"), binds: [...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]) - 1) };
}

/** The values a SQLite statement binds, in its placeholders' order; a Date as Prisma's SQLite adapter stores a DateTime. */
const sqliteValues = (binds: number[], params: readonly unknown[]): unknown[] =>
  binds.map((i) => {
    const value = params[i];
    return value instanceof Date ? value.toISOString().replace("Z", "+00:00") : value;
  });

/** A SQLite connection, opened on first use, and its statements. */
class SqliteConnection {
  private connection: Database.Database | null = null;
  private readonly statements = new Map<string, SqliteStatement>();

  constructor(
    private readonly path: string,
    private readonly timeout: number,
    private readonly tuning: SqliteTuning,
  ) {}

  private open(): Database.Database {
    const connection = new Database(this.path, { timeout: this.timeout });
    for (const pragma of sqlitePragmas(this.tuning)) connection.pragma(pragma);
    return connection;
  }

  /** The statement prepared for `sql`, and the parameters it binds, in their order. */
  bind(
    sql: string,
    params: readonly unknown[],
  ): { statement: Database.Statement; values: unknown[]; toRow: ((values: unknown[]) => unknown) | null } {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      this.connection ??= this.open();
      const form = sqliteForm(sql);
      const statement = this.connection.prepare(form.text);
      const toRow = statement.reader
        ? rowBuilder(
            statement
              .raw(true)
              .columns()
              .map((column) => column.name),
          )
        : null;
      prepared = { statement, binds: form.binds, toRow };
      setBounded(this.statements, sql, prepared, MAX_STATEMENTS);
    }
    return { statement: prepared.statement, values: sqliteValues(prepared.binds, params), toRow: prepared.toRow };
  }

  /** The rows of a reading statement, as objects. */
  static rows<Row>(
    statement: Database.Statement,
    values: unknown[],
    toRow: ((values: unknown[]) => unknown) | null,
  ): Row[] {
    return (statement.all(...values) as unknown[][]).map(toRow!) as Row[];
  }

  close(): void {
    this.statements.clear();
    this.connection?.close();
    this.connection = null;
  }
}

const isBusy = (err: unknown): boolean =>
  typeof (err as { code?: unknown } | null)?.code === "string" &&
  (err as { code: string }).code.startsWith("SQLITE_BUSY");

/** A read statement's SQLite form on the read threads, and its row builder once a thread has described its columns. */
interface ThreadStatement {
  text: string;
  binds: number[];
  toRow: ((values: unknown[]) => unknown) | null;
}

class SqliteStatements implements DriverStatements {
  /** Where reads run: on the event loop's thread (database.sqlite_read_threads = 0) or on threads of their own. */
  private readonly reads: SqliteConnection | SqliteReadThreads;
  private readonly threadStatements = new Map<string, ThreadStatement>();
  private readonly writes: SqliteConnection;

  // Connections of their own (WAL: reads see what the writers committed); an in-memory database
  // is private to its connection, so it cannot have them.
  constructor(path: string, tuning: SqliteTuning) {
    if (path === ":memory:") throw new Error("driver reads need a database file, not :memory:");
    this.reads =
      tuning.sqliteReadThreads === 0
        ? new SqliteConnection(path, BUSY_TIMEOUT_MS, tuning)
        : new SqliteReadThreads({
            path,
            pragmas: sqlitePragmas(tuning),
            timeoutMs: BUSY_TIMEOUT_MS,
            maxStatements: MAX_STATEMENTS,
            count: tuning.sqliteReadThreads,
          });
    this.writes = new SqliteConnection(path, 0, tuning);
  }

  async open(): Promise<void> {
    if (this.reads instanceof SqliteReadThreads) await this.reads.start();
  }

  async all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    if (this.reads instanceof SqliteConnection) {
      const { statement, values, toRow } = this.reads.bind(sql, params);
      return SqliteConnection.rows<Row>(statement, values, toRow);
    }
    let statement = this.threadStatements.get(sql);
    if (statement === undefined) {
      statement = { ...sqliteForm(sql), toRow: null };
      setBounded(this.threadStatements, sql, statement, MAX_STATEMENTS);
    }
    const { rows, columns } = await this.reads.read(
      statement.text,
      sqliteValues(statement.binds, params),
      statement.toRow === null,
    );
    statement.toRow ??= rowBuilder(columns!);
    return rows.map(statement.toRow) as Row[];
  }

  async run<Row>(sql: string, params: readonly unknown[]): Promise<{ rows: Row[]; count: number }> {
    const { statement, values, toRow } = this.writes.bind(sql, params);
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    for (let pause = 1; ; pause = Math.min(pause * 2, MAX_BUSY_PAUSE_MS)) {
      try {
        if (!statement.reader) return { rows: [], count: statement.run(...values).changes };
        const rows = SqliteConnection.rows<Row>(statement, values, toRow);
        return { rows, count: rows.length };
      } catch (err) {
        if (!isBusy(err) || Date.now() >= deadline) throw err;
      }
      await sleep(pause);
    }
  }

  async close(): Promise<void> {
    await this.reads.close();
    this.writes.close();
  }
}

/** Timestamps (without time zone, as Prisma stores them: UTC) and BIGINT as their text; the stores convert. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.TIMESTAMP || oid === pg.types.builtins.INT8
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/** A named PostgreSQL statement, and its row builder once its first result has described the columns. */
interface PostgresStatement {
  name: string;
  toRow: ((values: unknown[]) => unknown) | null;
}

class PostgresStatements implements DriverStatements {
  private readonly pool: pg.Pool;
  private readonly statements = new Map<string, PostgresStatement>();

  constructor(url: string) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: POOL_SIZE,
      // Opened at start (open()) and kept: a new connection costs a backend start and its first
      // statements' planning, which a cold start's first requests would otherwise each wait for.
      min: POOL_SIZE,
      allowExitOnIdle: true,
      types,
      // Generic plans: PostgreSQL would otherwise plan a named statement again on every execution
      // whenever its generic plan looks costlier than a custom one, as the list page's does. That
      // planning took about three times the page's execution (0.3-0.5 ms against 0.1 ms), while
      // these fixed statements reach their rows through the same indexes whatever the parameters.
      // Set per session with the service's own settings (postgres-session.ts).
      onConnect: setUpSession("SET plan_cache_mode = force_generic_plan"),
    });
    // An idle connection's failure (a restart, a dropped database) only closes it.
    this.pool.on("error", () => {});
  }

  async open(): Promise<void> {
    const clients = await Promise.all(Array.from({ length: POOL_SIZE }, () => this.pool.connect()));
    for (const client of clients) client.release();
  }

  async all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return (await this.query<Row>(sql, params)).rows;
  }

  async run<Row>(sql: string, params: readonly unknown[]): Promise<{ rows: Row[]; count: number }> {
    return this.query<Row>(sql, params);
  }

  private async query<Row>(sql: string, params: readonly unknown[]): Promise<{ rows: Row[]; count: number }> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = { name: `r${createHash("sha256").update(sql).digest("hex").slice(0, 20)}`, toRow: null };
      setBounded(this.statements, sql, statement, MAX_STATEMENTS);
    }
    // A Date as UTC text: a timestamp without time zone takes it as written (Prisma stores UTC).
    const values = params.map((value) => (value instanceof Date ? value.toISOString() : value));
    const result = await this.pool.query<unknown[]>({ name: statement.name, text: sql, values, rowMode: "array" });
    statement.toRow ??= rowBuilder(result.fields.map((field) => field.name));
    return { rows: result.rows.map(statement.toRow) as Row[], count: result.rowCount ?? 0 };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** A timestamp column's value from either driver. */
export const asDate = (value: string | Date | null): Date | null =>
  value === null
    ? null
    : value instanceof Date
      ? value
      : new Date(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value.replace(" ", "T")}Z`);

/** A BIGINT column's value from either driver. */
export const asBigInt = (value: number | string | bigint): bigint => BigInt(value);
