// The Prisma client for the configured database. Both providers' generated clients have the
// same models (their schemas are derived from one source), so the SQLite client's type stands
// for both.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { providerOf, sqlitePath } from "./database-url.ts";

export type Db = SqliteClient;
export { Prisma } from "./generated/sqlite/client.ts";
/** The read model's row types, for code that handles rows a store returned. */
export type { Comment, LiveEvent, Reaction, Retirement, Room, RoomMember, Submission } from "./generated/sqlite/client.ts";
/** The client inside `db.$transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0] & Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

export async function openDatabase(url: string): Promise<Db> {
  if (providerOf(url) === "postgres") {
    const { PrismaClient } = await import("./generated/postgres/client.ts");
    return new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as Db;
  }
  const path = sqlitePath(url);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  // WAL and a busy timeout let the worker, the projection and HTTP handlers write concurrently.
  const adapter = new PrismaBetterSQLite3({ url: `file:${path}`, timeout: 10_000 });
  const db = new SqliteClient({ adapter });
  return db;
}

/** True when `err` is a unique-constraint violation (Prisma P2002) on either provider. */
export const isUniqueViolation = (err: unknown): boolean =>
  typeof err === "object" && err !== null && (err as { code?: string }).code === "P2002";
