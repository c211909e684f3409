// @ts-check
// A thread that runs the driver's read statements on a SQLite connection of its own
// (sqlite-read-threads.ts). better-sqlite3 reads synchronously: on the service's own thread a
// statement that misses the OS page cache holds the event loop for every page it reads from disk,
// one read after another. Here it holds only this thread, and the threads' reads reach the disk
// together. Plain JavaScript: a worker thread does not inherit the service's TypeScript loader
// on Node.js 20, and loading one costs a start twice as long.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

/** @type {{ path: string, pragmas: string[], timeoutMs: number, maxStatements: number }} */
const { path, pragmas, timeoutMs, maxStatements } = workerData;
const connection = new Database(path, { timeout: timeoutMs });
for (const pragma of pragmas) connection.pragma(pragma);
// The schema read now, so a start that waits for this answer leaves no first read to do it.
connection.prepare("SELECT count(*) FROM sqlite_schema").get();
parentPort?.postMessage({ ready: true });

/** @type {Map<string, import("better-sqlite3").Statement>} */
const statements = new Map();

/** @param {string} sql */
function prepared(sql) {
  let statement = statements.get(sql);
  if (!statement) {
    statement = connection.prepare(sql).raw(true);
    if (statements.size >= maxStatements) statements.delete(statements.keys().next().value ?? "");
    statements.set(sql, statement);
  }
  return statement;
}

// A request: { id, sql (with `?` placeholders), values, describe (whether to send the column names) }.
// An answer: { id, rows (arrays), columns? } or { id, error: { message, code } }.
parentPort?.on(
  "message",
  (/** @type {{ id: number, sql: string, values: unknown[], describe: boolean }} */ request) => {
    try {
      const statement = prepared(request.sql);
      const rows = statement.all(...request.values);
      const columns = request.describe ? statement.columns().map((column) => column.name) : undefined;
      parentPort?.postMessage({ id: request.id, rows, columns });
    } catch (err) {
      const { message, code } = /** @type {{ message?: unknown, code?: unknown }} */ (err ?? {});
      parentPort?.postMessage({ id: request.id, error: { message: String(message), code } });
    }
  },
);
