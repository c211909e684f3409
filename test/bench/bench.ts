// npm run bench [-- --db sqlite|postgres] [--duration ms] [--connections n] [--import-pages n] [--sections pure,reads,uncached,busy,writes,live,counts,import,scale] [--verbose]
// Starts what it needs — the local Synapse (instance "bench", port 18090, fresh), a fresh SQLite
// or PostgreSQL database, a service instance (port 18091) — seeds a 10,000-comment page, runs the
// sections (pure figures here; reads.ts, uncached.ts, busy.ts, writes.ts, live.ts, counts.ts, each a Section, see
// section.ts) and prints one table: figure | value | reference | ratio. Nothing is asserted.
// Load is driven from a second process (load-generator.ts); references are bare node:http
// servers in their own processes (reference-server.ts).
import { type ChildProcess, execFileSync, fork, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { availableParallelism, tmpdir } from "node:os";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { stringify as stringifyToml } from "smol-toml";
import { buildConfig } from "../../src/config/config.ts";
import { startService, writeRegistration, type RunningService } from "../../src/app/app.ts";
import { logDestination } from "../../src/app/logger.ts";
import { startLocalHomeserver, stopLocalHomeserver } from "../../src/matrix/local-homeserver.ts";
import { checkChallengeResponse, issueChallenge, solveChallenge } from "../../src/security/pow.ts";
import { verifySignature } from "../../src/security/author-proof.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { graphemeCount } from "../../src/security/graphemes.ts";
import { requestFingerprint } from "../../src/security/idempotency.ts";
import { Visitor } from "../support/visitor.ts";
import { closedUrl } from "../support/closed-url.ts";
import { seedComments, seedReactions } from "./seed.ts";
import type {
  BenchContext,
  BenchRow,
  DatabaseKind,
  LoadOptions,
  LoadResult,
  ReferenceServer,
  ServiceProcess,
  Section,
} from "./section.ts";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    duration: { type: "string", default: "5000" },
    connections: { type: "string", default: "20" },
    comments: { type: "string", default: "10000" },
    "import-pages": { type: "string", default: "1000" },
    sections: { type: "string", default: "pure,reads,uncached,busy,writes,live" },
    verbose: { type: "boolean", default: false },
  },
});
const kind = args.db as DatabaseKind;
if (kind !== "sqlite" && kind !== "postgres") throw new Error(`--db must be sqlite or postgres, not ${args.db}`);
const durationMs = Number(args.duration);
const connections = Number(args.connections);
const commentCount = Number(args.comments);
const wanted = new Set(args.sections!.split(","));
const log = (message: string) => console.error(`bench: ${message}`);

// The service runs in this process, so its Node.js flags are part of what is measured: they must
// be the ones `npm start` gives it (package.json's start script), or the figures are not the product's.
const startScript: string = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")).scripts
  .start;
const startFlags = startScript.split(/\s+/).filter((token) => token.startsWith("--") && token !== "--import");
const missingFlags = startFlags.filter((flag) => !process.execArgv.includes(flag));
if (missingFlags.length > 0)
  log(`not run as npm start runs the service: missing ${missingFlags.join(" ")} (use npm run bench)`);
/** The service's messages: shown with --verbose, else kept (the last lines) for a failure report. */
const serviceLines: string[] = [];
const serviceLog = (message: string) => {
  if (args.verbose) log(message);
  else if (serviceLines.push(message) > 200) serviceLines.shift();
};

// Overridable so that two benchmarks on one machine do not share a homeserver or a port.
const SYNAPSE_INSTANCE = process.env.BENCH_SYNAPSE_INSTANCE ?? "bench";
const SYNAPSE_PORT = Number(process.env.BENCH_SYNAPSE_PORT ?? 18090);
const SERVICE_PORT = Number(process.env.BENCH_SERVICE_PORT ?? 18091);
const SERVER_NAME = "localhost";
const POSTGRES_URL =
  process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SITE = "bench";
const PAGE = "big";
const ORIGIN = "https://bench.example";

/** Pure logic, in this process: no reference. */
function pureRows(): BenchRow[] {
  const rate = (figure: string, iterations: number, fn: (i: number) => void): BenchRow => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn(i);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { figure, value: `${(iterations / seconds).toFixed(0)} ops/s`, reference: "", ratio: "" };
  };
  const secret = randomBytes(32);
  const challenge = issueChallenge(secret, 16, Date.now());
  const answer = solveChallenge(challenge.challenge, 16);
  const visitor = new Visitor("http://unused");
  const array = signatureArrays.postComment(
    "site",
    "page",
    "a comment of some length",
    null,
    null,
    challenge.challenge,
  );
  const signature = Buffer.from(visitor.sign(array), "base64url");
  const text = "héllo 👋🏽 wörld 🇯🇵 ".repeat(600);
  const body = Buffer.from(JSON.stringify({ content: text }));
  return [
    rate("PoW check (difficulty 16)", 50_000, () => checkChallengeResponse(secret, answer, Date.now())),
    rate("Ed25519 author signature verify", 20_000, () => verifySignature(visitor.publicKey, signature, array)),
    rate(`grapheme count (${text.length} UTF-16 units)`, 200, () => graphemeCount(text)),
    rate("request fingerprint (10 KB body)", 20_000, () =>
      requestFingerprint("POST", "/api/v1/sites/s/pages/p/comments", body),
    ),
  ];
}

async function freshDatabase(work: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (kind === "sqlite") return { url: `file:${join(work, "bench.sqlite")}`, drop: async () => {} };
  const name = `comments_bench_${randomBytes(5).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** The configuration document of a bench instance (`port` 0: any free port). */
function benchDocument(work: string, databaseUrl: string, port: number) {
  const budgets = [
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
    "sse_per_hour",
    "sse_burst",
    "sse_max_streams",
  ];
  return {
    server: { listen_host: "127.0.0.1", listen_port: port },
    database: { url: databaseUrl },
    matrix: {
      homeserver_url: `http://127.0.0.1:${SYNAPSE_PORT}`,
      server_name: SERVER_NAME,
      as_token: "bench-as-token-0123456789",
      hs_token: "bench-hs-token-0123456789",
      registration_file: join(work, "registration.yaml"),
      appservice_url: `http://127.0.0.1:${SERVICE_PORT}`,
    },
    security: { operator_token: "bench-operator-token", pow_difficulty: 8 },
    // The worker's idle poll stays at its default (a new submission wakes it at once): a faster
    // poll would put an idle claim query beside every figure.
    queue: { retry_base_ms: 50 },
    // Rate limits stay on (their cost is part of every figure) with budgets the load never spends.
    rate_limit: Object.fromEntries(budgets.map((key) => [key, 1_000_000_000])),
    sites: { [SITE]: { origins: [ORIGIN] } },
  };
}

const references = new Set<() => Promise<void>>();

/** A helper script of this folder in a process of its own (IPC open), stopped with the run's other helpers. */
function forkHelper(script: string): { child: ChildProcess; stop: () => Promise<void> } {
  const child = fork(join(import.meta.dirname, script), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      references.delete(stop);
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill();
    });
  references.add(stop);
  return { child, stop };
}

/** The load generator's process (one for the run, forked at the first load) and its runs awaiting results. */
let generator: ChildProcess | null = null;
const pending = new Map<number, { resolve: (result: LoadResult) => void; reject: (err: Error) => void }>();
let runs = 0;

/** Runs the load generator (test/bench/load-generator.ts, a second process); resolves its result. */
function load(options: LoadOptions): Promise<LoadResult> {
  const id = ++runs;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    loadGenerator().send({ id, options: { connections, durationMs, ...options } });
  });
}

/** The load generator's process, forked at the first call. */
function loadGenerator(): ChildProcess {
  if (!generator) {
    const { child } = forkHelper("load-generator.ts");
    child.on("message", (message: { id: number; result?: LoadResult; error?: string }) => {
      const run = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) run?.reject(new Error(`load generator: ${message.error}`));
      else run?.resolve(message.result!);
    });
    child.once("exit", (code) => {
      generator = null;
      for (const run of pending.values()) run.reject(new Error(`load generator exited with ${code}`));
      pending.clear();
    });
    generator = child;
  }
  return generator;
}

/**
 * Runs `run` with `servers` (every thread) on the machine's last CPU and this process and the load
 * generator on the others, then lets all run anywhere again. Servers measured at the same moments
 * on one CPU share it alike, so what the machine does meanwhile weighs on them alike.
 */
async function onOneCpu<T>(servers: readonly { pid: number }[], run: () => Promise<T>): Promise<T> {
  const cpus = availableParallelism();
  if (cpus < 2) throw new Error("two CPUs or more are needed: one for the servers, one for the load");
  const pin = (pid: number, list: string) => execFileSync("taskset", ["-a", "-p", "-c", list, String(pid)]);
  const everyone = [process.pid, loadGenerator().pid!];
  const all = `0-${cpus - 1}`;
  try {
    for (const server of servers) pin(server.pid, String(cpus - 1));
    for (const pid of everyone) pin(pid, `0-${cpus - 2}`);
    return await run();
  } finally {
    for (const pid of [...everyone, ...servers.map((server) => server.pid)]) pin(pid, all);
  }
}

/** A bare node:http server in its own process answering every request with `body`. */
function reference(
  body: string | Buffer,
  options: { status?: number; contentType?: string } = {},
): Promise<ReferenceServer> {
  const { child, stop } = forkHelper("reference-server.ts");
  child.send({ body: Buffer.from(body).toString("base64"), ...options });
  const cpuMicros = () =>
    new Promise<number>((resolve) => {
      child.once("message", (message: { cpuMicros: number }) => resolve(message.cpuMicros));
      child.send({ cpu: true });
    });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("message", (message: { port: number }) =>
      resolve({ url: `http://127.0.0.1:${message.port}`, cpuMicros, stop }),
    );
  });
}

let processCount = 0;

/**
 * A service instance started as `npm start` starts one (the start script's command and flags),
 * with `--config` (the bench's document and `overrides`, as TOML) and `--no-worker`; its stdout
 * (the JSON lines) goes into a file of its own. Resolves once /health/ready answers 200.
 */
async function startProcess(
  work: string,
  databaseUrl: string,
  overrides: Record<string, unknown>,
): Promise<ServiceProcess> {
  // A port just freed, for the instance to listen on.
  const url = await closedUrl();
  const name = `process-${++processCount}`;
  const configFile = join(work, `${name}.toml`);
  const logFile = join(work, `${name}.log`);
  /** Writes its configuration file: the bench's document with `overrides` (dotted keys). */
  const configure = (overrides: Record<string, unknown>) => {
    const document: Record<string, unknown> = benchDocument(work, databaseUrl, Number(new URL(url).port));
    for (const [key, value] of Object.entries(overrides)) {
      const path = key.split(".");
      let section = document;
      for (const part of path.slice(0, -1)) section = (section[part] ??= {}) as Record<string, unknown>;
      section[path.at(-1)!] = value;
    }
    writeFileSync(configFile, stringifyToml(document));
  };
  configure(overrides);
  const [command, ...args] = startScript.split(/\s+/);
  const child = spawn(
    command === "node" ? process.execPath : command!,
    [...args, "--config", configFile, "--no-worker"],
    {
      cwd: join(import.meta.dirname, "../.."),
      stdio: ["ignore", openSync(logFile, "a"), "inherit"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // A graceful stop (SIGTERM, as an operator's), and SIGKILL should it not end within 15 s.
  const stop = async () => {
    references.delete(stop);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(kill);
  };
  references.add(stop);
  try {
    await eventually(
      `${name} ready`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} (log: ${logFile})`);
        return (await fetch(`${url}/health/ready`).catch(() => null))?.status === 200;
      },
      60_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const stat = () => readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return {
    url,
    pid: child.pid!,
    // Each thread's time on a CPU (the first field of /proc/PID/task/TID/schedstat, in ns): finer
    // than the 10 ms ticks of /proc/PID/stat, which a slice of a second at half a CPU reads to ±2%.
    cpuMicros: async () => {
      let nanoseconds = 0;
      for (const thread of readdirSync(`/proc/${child.pid}/task`)) {
        try {
          nanoseconds += Number(readFileSync(`/proc/${child.pid}/task/${thread}/schedstat`, "utf8").split(" ")[0]);
        } catch {
          // The thread ended since the listing.
        }
      }
      return nanoseconds / 1000;
    },
    // rss (the 24th field), in pages.
    rssBytes: () => Number(stat()[21]) * 4096,
    // As an operator changes a running instance: the file edited, then SIGHUP (src/cli/start.ts);
    // done once its log says the file was re-read.
    async reconfigure(changed) {
      const next = { ...overrides, ...changed };
      if (JSON.stringify(next) === JSON.stringify(overrides)) return;
      overrides = next;
      configure(overrides);
      const from = statSync(logFile).size;
      child.kill("SIGHUP");
      await eventually(`${name} to re-read its configuration`, async () => {
        const fd = openSync(logFile, "r");
        try {
          const tail = Buffer.alloc(statSync(logFile).size - from);
          readSync(fd, tail, 0, tail.length, from);
          return tail.includes('"event":"configuration-reloaded"');
        } finally {
          closeSync(fd);
        }
      });
    },
    stop,
  };
}

async function eventually<T>(
  what: string,
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The big page: a real first comment by a visitor provisions its room on Synapse and registers
 * the visitor's virtual user; the rest is bulk-seeded (seed.ts), and the visitor's reactions on
 * the first page's comments give personalized reads their `mine`.
 */
async function seedBigPage(service: RunningService): Promise<{ roomId: string; visitor: Visitor }> {
  const visitor = new Visitor(service.url, ORIGIN);
  const path = `/api/v1/sites/${SITE}/pages/${PAGE}/comments`;
  const res = await visitor.post(path, await visitor.commentBody(SITE, PAGE, "The first comment, through Synapse."), {
    "idempotency-key": "bench-first",
  });
  if (res.status !== 202) throw new Error(`seeding: first comment answered ${res.status}: ${await res.text()}`);
  const db = service.services.db;
  await eventually("the first comment to be projected", () =>
    db.comment.findFirst({ where: { siteId: SITE, pageSlug: PAGE } }),
  );
  const room = (await db.room.findFirst({ where: { siteId: SITE, pageSlug: PAGE, state: "active" } }))!;
  const target = { roomId: room.roomId, siteId: SITE, pageSlug: PAGE };
  const started = Date.now();
  const ids = await seedComments(db, target, commentCount - 1, SERVER_NAME);
  const virtualUser = (await db.virtualUser.findFirst({ where: { siteId: SITE, publicKey: visitor.key } }))!;
  await seedReactions(db, target, virtualUser.userId, ids.slice(0, 20));
  log(`seeded ${commentCount - 1} comments in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // The bulk load's statistics and visibility map now, rather than by an autovacuum in the middle of a figure.
  if (kind === "postgres") await db.$executeRawUnsafe("VACUUM ANALYZE");
  return { roomId: room.roomId, visitor };
}

async function sectionModules(): Promise<Array<{ name: string; section: Section }>> {
  const found = [];
  for (const name of ["reads", "uncached", "busy", "writes", "live", "counts", "import", "scale"]) {
    const file = join(import.meta.dirname, `${name}.ts`);
    if (!wanted.has(name) || !existsSync(file)) continue;
    const module = (await import(file)) as { default?: Section; section?: Section };
    const section = module.default ?? module.section;
    if (section) found.push({ name, section });
  }
  return found;
}

function printTable(rows: BenchRow[]): void {
  const header: BenchRow = { figure: "figure", value: "value", reference: "reference", ratio: "ratio" };
  const keys = ["figure", "value", "reference", "ratio"] as const;
  const widths = keys.map((k) => Math.max(...[header, ...rows].map((r) => r[k].length)));
  const line = (r: BenchRow) => `| ${keys.map((k, i) => r[k].padEnd(widths[i]!)).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
}

const rows: BenchRow[] = [];
if (wanted.has("pure")) rows.push(...pureRows());
const sections = await sectionModules();
if (sections.length > 0) {
  const work = mkdtempSync(join(tmpdir(), "bench-"));
  const database = await freshDatabase(work);
  const config = buildConfig(benchDocument(work, database.url, SERVICE_PORT));
  // The service's JSON lines are written as npm start writes them (the same asynchronous
  // destination, at the configured level: info by default), into a file instead of stdout,
  // which holds the table.
  const serviceLogFile = logDestination(openSync(join(work, "service.log"), "a"));
  let service: RunningService | null = null;
  let homeserverStarted = false;
  const extra: RunningService[] = [];
  try {
    log(`starting a fresh Synapse (instance "${SYNAPSE_INSTANCE}", port ${SYNAPSE_PORT})`);
    startLocalHomeserver({
      instance: SYNAPSE_INSTANCE,
      port: SYNAPSE_PORT,
      serverName: SERVER_NAME,
      registrationFile: writeRegistration(config),
      fresh: true,
    });
    homeserverStarted = true;
    service = await startService(config, { worker: true, log: serviceLog, logDestination: serviceLogFile });
    log(`service on ${service.url}, database ${kind}; seeding ${commentCount} comments`);
    const { roomId, visitor } = await seedBigPage(service);
    const running = service;
    const ctx: BenchContext = {
      service: running,
      serviceUrl: running.url,
      config,
      database: { kind, url: database.url },
      connections,
      durationMs,
      importPages: Number(args["import-pages"]),
      homeserver: { url: config.matrix.homeserverUrl, asToken: config.matrix.asToken, serverName: SERVER_NAME },
      seeded: { siteId: SITE, pageSlug: PAGE, roomId, commentCount, origin: ORIGIN, viewer: visitor },
      load,
      reference,
      startProcess: (options = {}) => startProcess(work, database.url, options.overrides ?? {}),
      onOneCpu,
      async startInstance(options = {}) {
        const instance = await startService(
          buildConfig(benchDocument(work, database.url, 0), options.overrides ?? {}),
          { worker: options.worker ?? true, log: serviceLog, logDestination: serviceLogFile },
        );
        extra.push(instance);
        return instance;
      },
      log,
    };
    for (const { name, section } of sections) {
      log(`section ${name}`);
      try {
        rows.push(...(await section(ctx)));
      } catch (err) {
        log(
          `section ${name} failed: ${(err as Error).stack ?? err}${(err as Error).cause ? ` (cause: ${String((err as Error).cause)})` : ""}`,
        );
        rows.push({ figure: `${name}: failed (${(err as Error).message})`, value: "", reference: "", ratio: "" });
      }
    }
  } catch (err) {
    for (const line of serviceLines) log(`service: ${line}`);
    throw err;
  } finally {
    for (const stop of [...references]) await stop();
    for (const instance of extra) await instance.stop().catch(() => {});
    await service?.stop();
    if (homeserverStarted) stopLocalHomeserver(SYNAPSE_INSTANCE);
    await database.drop();
    rmSync(work, { recursive: true, force: true });
  }
}
const runtime =
  missingFlags.length === 0
    ? `node ${startFlags.join(" ") || "as npm start"}`
    : `NOT as npm start: missing ${missingFlags.join(" ")}`;
console.log(
  `\n# npm run bench -- --db ${kind} (${connections} connections, ${durationMs} ms per figure; ${runtime})\n`,
);
printTable(rows);
process.exit(0);
