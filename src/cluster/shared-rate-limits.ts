// Rate-limit budgets shared by every instance on one PostgreSQL database: each group's counters
// live in one table (rate-limiter-flexible's PostgreSQL store), so a client spends one budget
// whichever instance it reaches. Instances take the points in leases and spend them in memory
// (./budget-leases.ts: no round trip per request; a budget of 100 points or more may be off by
// up to N × (lease − 1) across N instances). Rows expire with their window and are swept hourly,
// so the table (and each instance's leases) stays bounded by the clients of the last window. If
// the store cannot answer, the instance falls back to its own in-memory budget for those
// requests (fail open to the per-instance limit, never to no limit).
import pg from "pg";
import { Redis } from "ioredis";
import { RateLimiterPostgres, RateLimiterRedis } from "rate-limiter-flexible";
import type { Limiter, SharedBudget, SharedRateLimitStore } from "../config/limits.ts";
import { leasedLimiter } from "./budget-leases.ts";

export type { SharedRateLimitStore } from "../config/limits.ts";

export const RATE_LIMIT_TABLE = "rate_limit_counters";

/** Counters in Redis (keys expire with their window). */
export class RedisRateLimitStore implements SharedRateLimitStore {
  readonly kind = "redis";
  private readonly client: Redis;

  constructor(redisUrl: string) {
    // Commands fail at once while Redis is away (the fallback counts), rather than queueing.
    this.client = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    this.client.on("error", () => {});
  }

  static async open(redisUrl: string): Promise<RedisRateLimitStore> {
    const store = new RedisRateLimitStore(redisUrl);
    if (store.client.status !== "ready")
      await new Promise<void>((resolve) => store.client.once("ready", () => resolve()));
    return store;
  }

  limiter(budget: SharedBudget): Limiter {
    return leasedLimiter(
      new RateLimiterRedis({
        storeClient: this.client,
        keyPrefix: `comments-rl:${budget.name}`,
        points: budget.points,
        duration: budget.windowSeconds,
        rejectIfRedisNotReady: true,
      }),
      budget,
    );
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

export class PostgresRateLimitStore implements SharedRateLimitStore {
  readonly kind = "postgres";
  private readonly pool: pg.Pool;

  private constructor(databaseUrl: string) {
    // Every rate-limited request updates a counter row; waiting for each commit's WAL flush
    // capped one client's requests at about 500/s (20 connections, docs/benchmarks.md). A
    // counter lost to a crash costs nothing, so these commits do not wait for the flush.
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 4, options: "-c synchronous_commit=off" });
    // An idle client's error (the database restarting) must not end the process.
    this.pool.on("error", () => {});
  }

  static async open(databaseUrl: string): Promise<PostgresRateLimitStore> {
    const store = new PostgresRateLimitStore(databaseUrl);
    // Instances starting together may race on CREATE TABLE IF NOT EXISTS (a duplicate pg_type
    // row): one of them wins, the others find the table on their retry.
    for (let attempt = 0; ; attempt++) {
      try {
        await store.pool.query(
          `CREATE TABLE IF NOT EXISTS ${RATE_LIMIT_TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
        );
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
    return leasedLimiter(store, budget);
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }
}

/**
 * The store the budgets share: Redis when rate_limit.redis_url is set, else the PostgreSQL
 * database; null (each instance counts alone, in memory) on SQLite without Redis.
 */
export async function openSharedRateLimits(options: {
  redisUrl: string | null;
  databaseUrl: string;
  postgres: boolean;
}): Promise<SharedRateLimitStore | null> {
  if (options.redisUrl) return RedisRateLimitStore.open(options.redisUrl);
  if (options.postgres) return PostgresRateLimitStore.open(options.databaseUrl);
  return null;
}
