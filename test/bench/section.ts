// The benchmark's plug-in interface: `npm run bench` (test/bench/bench.ts) starts the local
// Synapse, a fresh database and a service instance, seeds a 10,000-comment page, then runs each
// section module that exists (reads.ts, writes.ts, live.ts) and prints their rows in one table.
// A section exports `default` (or `section`) of type Section.
import type { Config } from "../../src/config/config.ts";
import type { RunningService } from "../../src/app/app.ts";
import type { Visitor } from "../support/visitor.ts";

/** One line of the results table; `reference`/`ratio` are "" when a figure has none. */
export interface BenchRow {
  figure: string;
  value: string;
  reference: string;
  ratio: string;
}

export type DatabaseKind = "sqlite" | "postgres";

/** What the load generator (test/bench/load-generator.ts, a second process) drives. */
export interface LoadOptions {
  url: string;
  /** A path on `url`'s origin per request instead of `url`'s own: `template` with `{n}` a random integer in [0, count). */
  randomPath?: { template: string; count: number };
  method?: string;
  /** Sent as-is (a JSON string, typically). */
  body?: string;
  headers?: Record<string, string>;
  /** Keep-alive connections, each with one request in flight (default 20). */
  connections?: number;
  /** Measured duration in ms (default: the runner's --duration, 5000). */
  durationMs?: number;
  /** Unmeasured warm-up before it, in ms (default 1000). */
  warmupMs?: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses by status code; a figure is suspect unless they are all the expected one. */
  statuses: Record<string, number>;
  /** Connection-level failures. */
  errors: number;
  /** Bytes of the last response body (to check a reference returns the same size). */
  lastBodyBytes: number;
  /** Every response received, the warm-up's and those in flight at the end included (what the server answered in the run: CPU per request). */
  answered: number;
}

/** A service instance in a process of its own (BenchContext.startProcess). */
export interface ServiceProcess extends ReferenceServer {
  pid: number;
  /** Its resident set size now, in bytes. */
  rssBytes(): number;
  /** Changes its configuration as an operator would (the file rewritten with these overrides too, then SIGHUP); resolves once it has re-read the file. */
  reconfigure(overrides: Record<string, unknown>): Promise<void>;
}

export interface ReferenceServer {
  url: string;
  /** The reference process's CPU time so far (user + system, µs). */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

export interface BenchContext {
  /** The running service instance (worker on) and its base URL. */
  service: RunningService;
  serviceUrl: string;
  config: Config;
  database: { kind: DatabaseKind; url: string };
  /** The connections the runner was given (--connections); load() uses them by default. */
  connections: number;
  /** The measured duration per figure the runner was given (--duration); load() uses it by default. */
  durationMs: number;
  homeserver: { url: string; asToken: string; serverName: string };
  /** The import section's size in pages of 100 comments (--import-pages; the figure is 1,000). */
  importPages: number;
  /**
   * The seeded site and page: `commentCount` comments in the page room `roomId`; `viewer` wrote
   * the first (real) comment and reacted to each comment of page 1 (for personalized reads).
   */
  seeded: { siteId: string; pageSlug: string; roomId: string; commentCount: number; origin: string; viewer: Visitor };
  /** Runs the load generator in a second process. */
  load(options: LoadOptions): Promise<LoadResult>;
  /** Starts a bare node:http server in its own process answering every request with `body`. */
  reference(body: string | Buffer, options?: { status?: number; contentType?: string }): Promise<ReferenceServer>;
  /** Another instance on the same database (e.g. for multi-instance figures); stop it yourself. */
  startInstance(options?: { worker?: boolean; overrides?: Record<string, unknown> }): Promise<RunningService>;
  /**
   * An instance on the same database as `npm start` runs one: a process of its own with the start
   * script's Node.js flags, a configuration file, its JSON lines on stdout (into a file), no worker.
   * Its heap holds nothing of the bench's, and its CPU time is its own. Stop it yourself.
   */
  startProcess(options?: { overrides?: Record<string, unknown> }): Promise<ServiceProcess>;
  /**
   * Runs `run` with `servers` on one CPU (every thread) and the bench and its load generator on
   * the others: servers measured at the same moments then share a CPU alike.
   */
  onOneCpu<T>(servers: readonly { pid: number }[], run: () => Promise<T>): Promise<T>;
  log(message: string): void;
}

export type Section = (ctx: BenchContext) => Promise<BenchRow[]>;

/** Formatting shared by the sections, so the table reads alike. */
export const format = {
  rate: (perSecond: number, unit = "req/s") => `${perSecond.toFixed(0)} ${unit}`,
  load: (r: LoadResult) =>
    `${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms`,
  ms: (ms: number) => `${ms.toFixed(1)} ms`,
  ratio: (value: number, reference: number) => (reference > 0 ? `${((value / reference) * 100).toFixed(0)}%` : ""),
};
