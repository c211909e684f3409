// How every connection of the service to PostgreSQL is set up, whichever pool opens it (Prisma's,
// the driver statements'). The service's statements are short OLTP reads and writes of a few rows
// through indexes: a parallel plan or JIT compilation never pays for itself there, yet the planner
// chooses them whenever it overestimates a range (a page holding most of a table's rows, a
// newest-first range estimated from the count): two workers started and a JIT compile on every
// request, 5-20× the statement's own time (docs/benchmarks.md, "PostgreSQL: no parallel plans or
// JIT"). Turned off
// per session, so no operator has to know; set with SET rather than as startup options, which
// a connection pooler may refuse. A server that refuses a setting runs as before.
import type pg from "pg";

const OLTP_SETTINGS = ["SET jit = off", "SET max_parallel_workers_per_gather = 0"];

/** The pool option that sets a new connection up, plus `extra` statements of the pool's own. */
export const setUpSession =
  (...extra: string[]) =>
  (client: pg.ClientBase): Promise<void> =>
    client.query([...OLTP_SETTINGS, ...extra].join("; ")).then(
      () => {},
      () => {},
    );
