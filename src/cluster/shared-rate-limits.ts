// Rate-limit budgets shared by every instance on one PostgreSQL database: each group's counters
// live in one table (rate-limiter-flexible's PostgreSQL store), so a client spends one budget
// whichever instance it reaches. Rows expire with their window and are swept hourly, so memory
// (and the table) stays bounded by the clients of the last window. If the database cannot
// answer, the instance falls back to its own in-memory budget for that request (fail open to
// the per-instance limit, never to no limit).
import pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import type { Limiter } from "../config/limits.ts";

export const RATE_LIMIT_TABLE = "rate_limit_counters";

export interface SharedBudget {
  /** The group's name: the prefix of its keys in the shared table. */
  name: string;
  points: number;
  windowSeconds: number;
  /** The per-instance limiter used when the database does not answer. */
  fallback: Limiter;
}

export class SharedRateLimitStore {
  private readonly pool: pg.Pool;

  private constructor(databaseUrl: string) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    // An idle client's error (the database restarting) must not end the process.
    this.pool.on("error", () => {});
  }

  static async open(databaseUrl: string): Promise<SharedRateLimitStore> {
    const store = new SharedRateLimitStore(databaseUrl);
    // Instances starting together may race on CREATE TABLE IF NOT EXISTS (a duplicate pg_type
    // row): one of them wins, the others find the table on their retry.
    for (let attempt = 0; ; attempt++) {
      try {
        await store.pool.query(`CREATE TABLE IF NOT EXISTS ${RATE_LIMIT_TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
      }
    }
    return store;
  }

  limiter(budget: SharedBudget): Limiter {
    const store = new RateLimiterPostgres({
      storeClient: this.pool,
      storeType: "pool",
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      keyPrefix: budget.name,
      points: budget.points,
      duration: budget.windowSeconds,
      clearExpiredByTimeout: true,
    });
    return {
      retryAfterSeconds: budget.fallback.retryAfterSeconds,
      async take(key: string, now: number): Promise<boolean> {
        try {
          await store.consume(key, 1);
          return true;
        } catch (err) {
          if (err instanceof RateLimiterRes) return false;
          return budget.fallback.take(key, now);
        }
      },
    };
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }
}
