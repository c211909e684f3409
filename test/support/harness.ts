// Starting real service instances for integration tests: real SQLite or PostgreSQL, the real
// test Synapse, real HTTP.
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { randomBytes } from "node:crypto";
import { after, before } from "node:test";
import pg from "pg";
import { buildConfig, type Config } from "../../src/config/config.ts";
import { startService, type RunningService } from "../../src/app/app.ts";
import {
  laneIdentity,
  TEST_HOMESERVER_URL,
  TEST_LANE,
  TEST_OPERATOR_TOKEN,
  TEST_POSTGRES_URL,
  TEST_SERVER_NAME,
} from "./environment.ts";

export type Provider = "sqlite" | "postgres";

/** Every database the service runs on: the tests that depend on the database run on each
 * (TEST_PROVIDERS=sqlite narrows a run to one, as CI's pass on a second Node.js major does). */
export const PROVIDERS: readonly Provider[] = (["sqlite", "postgres"] as const).filter(
  (provider) => !process.env.TEST_PROVIDERS || process.env.TEST_PROVIDERS.split(",").includes(provider),
);

export const TEST_ORIGIN = "https://blog.example";

/** A site id no other test (or earlier run against the same homeserver) uses. */
export const uniqueSiteId = (prefix = "site") => `${prefix}-${randomBytes(5).toString("hex")}`;

export function testConfigDocument(
  options: {
    registrationFile?: string;
    databaseUrl?: string;
    sites?: Record<string, unknown>;
    port?: number;
    /** The appservice lane (test/support/environment.ts); the test process's own by default. */
    lane?: number;
  } = {},
) {
  const work = process.env.TEST_WORK_DIR ?? mkdtempSync(join(tmpdir(), "comment-service-"));
  const laneNumber = options.lane ?? TEST_LANE;
  const lane = laneIdentity(laneNumber);
  return {
    server: { listen_host: "127.0.0.1", listen_port: options.port ?? lane.servicePort },
    database: { url: options.databaseUrl ?? `file:${join(work, `db-${randomBytes(4).toString("hex")}.sqlite`)}` },
    matrix: {
      homeserver_url: TEST_HOMESERVER_URL,
      server_name: TEST_SERVER_NAME,
      as_token: lane.asToken,
      hs_token: lane.hsToken,
      appservice_id: lane.appserviceId,
      namespace_prefix: lane.namespacePrefix,
      registration_file: options.registrationFile ?? join(work, `registration-lane${laneNumber}.yaml`),
    },
    security: { operator_token: TEST_OPERATOR_TOKEN, pow_difficulty: 8 },
    queue: { poll_interval_ms: 50, retry_base_ms: 50 },
    // Budgets no test run reaches; test/integration/rate-limits.test.ts sets small ones.
    rate_limit: Object.fromEntries(
      [
        "site_registration",
        "verification_start",
        "verification_confirm",
        "comment_write",
        "profile_read",
        "challenge",
        "public_read",
        "claim_token",
        "governance_write",
        "operator",
        "media_upload",
      ].map((key) => [key, 10_000]),
    ),
    sites: options.sites ?? {},
  };
}

/** A fresh, empty database of the provider; for PostgreSQL a new database dropped by `drop`. */
export async function freshDatabase(provider: Provider): Promise<{ url: string; drop: () => Promise<void> }> {
  if (provider === "sqlite") {
    const work = process.env.TEST_WORK_DIR ?? mkdtempSync(join(tmpdir(), "comment-service-"));
    return { url: `file:${join(work, `db-${randomBytes(4).toString("hex")}.sqlite`)}`, drop: async () => {} };
  }
  const name = `comments_test_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await c.connect();
      // A stopped service's connections may still be closing: let them go before forcing the
      // rest, so none of them is terminated mid-close (an error event nobody listens to any more).
      for (let i = 0; i < 50; i++) {
        const open = await c.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1", [
          name,
        ]);
        if (Number(open.rows[0]?.n) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestService extends RunningService {
  config: Config;
}

export async function startTestService(
  options: {
    databaseUrl?: string;
    sites?: Record<string, unknown>;
    overrides?: Record<string, unknown>;
    worker?: boolean;
    log?: (message: string) => void;
    logDestination?: { write(line: string): void };
  } = {},
): Promise<TestService> {
  const config = buildConfig(
    testConfigDocument({ databaseUrl: options.databaseUrl, sites: options.sites }),
    options.overrides ?? {},
  );
  const running = await startService(config, {
    worker: options.worker ?? true,
    log: options.log ?? (options.logDestination ? undefined : () => {}),
    logDestination: options.logDestination,
  });
  // fetch keeps connections alive to an instance stopped earlier on this port; each fails once
  // ("other side closed"): spend them before the caller's requests.
  for (
    let i = 0;
    i < 5 &&
    !(await fetch(`${running.url}/health`).then(
      () => true,
      () => false,
    ));
    i++
  );
  return { ...running, config };
}

/**
 * A service on a fresh database of `provider` for the enclosing describe block: started before
 * its tests, stopped (and the database dropped) after them. Read `.service` inside tests.
 */
export function serviceFor(
  provider: Provider,
  options: Omit<Parameters<typeof startTestService>[0] & {}, "databaseUrl"> = {},
): { service: TestService } {
  const holder = {} as { service: TestService };
  let drop: () => Promise<void> = async () => {};
  before(async () => {
    const database = await freshDatabase(provider);
    drop = database.drop;
    holder.service = await startTestService({ ...options, databaseUrl: database.url });
  });
  after(async () => {
    await holder.service?.stop();
    await drop();
  });
  return holder;
}

/** Polls `check` until it returns a value (not undefined/null/false) or the timeout passes. */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
