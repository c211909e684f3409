// The Prisma client for the configured database. Both providers' generated clients have the
// same models (their schemas are derived from one source), so the SQLite client's type stands
// for both.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { providerOf, sqlitePath } from "./database-url.ts";
import { openDriverStatements, type DriverStatements } from "./driver-statements.ts";
import { setUpSession } from "./postgres-session.ts";
import { sqlitePragmas, type SqliteTuning } from "./sqlite-tuning.ts";
import { CONFIG_KEYS } from "../config/keys.ts";

export type Db = SqliteClient;
export { Prisma } from "./generated/sqlite/client.ts";
/** The read model's row types, for code that handles rows a store returned. */
export type {
  Comment,
  LiveEvent,
  Reaction,
  Retirement,
  Room,
  RoomMember,
  SiteBan,
  Submission,
  WebhookDelivery,
  WebhookEndpoint,
} from "./generated/sqlite/client.ts";
/** The client inside `db.$transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0] &
  Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

/** The configuration keys' defaults, for the callers that open a database without a configuration (tests, tools). */
const DEFAULT_SQLITE_TUNING: SqliteTuning = {
  sqliteCacheMb: CONFIG_KEYS["database.sqlite_cache_mb"].default,
  sqliteMmapMb: CONFIG_KEYS["database.sqlite_mmap_mb"].default,
  sqliteReadThreads: CONFIG_KEYS["database.sqlite_read_threads"].default,
};

export async function openDatabase(url: string, sqlite: SqliteTuning = DEFAULT_SQLITE_TUNING): Promise<Db> {
  const db = await openPrisma(url, sqlite);
  // The hot reads' driver connections (driver-statements.ts), opened on first use and closed with the client.
  let reads: DriverStatements | null = null;
  driverStatementsOf.set(db, () => (reads ??= openDriverStatements(url, sqlite)));
  const disconnect = db.$disconnect.bind(db);
  db.$disconnect = async () => {
    await reads?.close();
    reads = null;
    await disconnect();
  };
  return db;
}

async function openPrisma(url: string, sqlite: SqliteTuning): Promise<Db> {
  if (providerOf(url) === "postgres") {
    const { PrismaClient } = await import("./generated/postgres/client.ts");
    return new PrismaClient({
      adapter: new PrismaPg({ connectionString: url, onConnect: setUpSession() }),
    }) as unknown as Db;
  }
  const path = sqlitePath(url);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  // WAL and a busy timeout let the worker, the projection and HTTP handlers write concurrently.
  const adapter = new PrismaBetterSQLite3({ url: `file:${path}`, timeout: 10_000 });
  const client = new SqliteClient({ adapter });
  // The adapter holds one connection: its pragmas, once.
  for (const pragma of sqlitePragmas(sqlite)) await client.$queryRawUnsafe(`PRAGMA ${pragma}`);
  return client;
}

const driverStatementsOf = new WeakMap<Db, () => DriverStatements>();

/** The driver reads on the database of `db` (a client openDatabase made): for the stores of hot reads only. */
export function driverStatements(db: Db): DriverStatements {
  const reads = driverStatementsOf.get(db);
  if (!reads) throw new Error("driver reads: not a client openDatabase made");
  return reads();
}

/** True when `err` is a unique-constraint violation (Prisma P2002) on either provider. */
export const isUniqueViolation = (err: unknown): boolean =>
  typeof err === "object" && err !== null && (err as { code?: string }).code === "P2002";
