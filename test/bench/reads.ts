// Read figures, with the read cache on (a repeated read is a cache hit): QUERY of page 1 and
// page 400 of the seeded 10,000-comment page (anonymous) and a personalized page 1, each next
// to a bare node:http server returning the same body; what the request log costs (page 1 at
// the default level against `warn`, two instances at once on one CPU); the room and roles reads
// likewise. Every figure is driven by the load generator in a second process.
import { signatureArrays } from "../../src/contract/signatures.ts";
import { format, type BenchContext, type BenchRow, type LoadOptions, type LoadResult } from "./section.ts";

/** Slices per figure: the service and its reference take turns, so a machine whose load varies weighs on both alike. */
const ROUNDS = 3;
/** Load before a figure's first slice (not measured), so each side is measured with its hot code compiled, as a running server is; later slices warm up briefly. */
const FIRST_WARMUP_MS = 2000;
const WARMUP_MS = 300;

/** LoadResults of consecutive slices as one: requests per second over their sum, percentiles weighted by requests. */
export function combine(results: LoadResult[]): LoadResult {
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const seconds = results.reduce((n, r) => n + r.requests / Math.max(r.requestsPerSecond, 1e-9), 0);
  const weighted = (pick: (r: LoadResult) => number) =>
    results.reduce((n, r) => n + pick(r) * r.requests, 0) / Math.max(requests, 1);
  const statuses: Record<string, number> = {};
  for (const r of results)
    for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  return {
    requests,
    requestsPerSecond: requests / seconds,
    p50Ms: weighted((r) => r.p50Ms),
    p99Ms: weighted((r) => r.p99Ms),
    statuses,
    errors: results.reduce((n, r) => n + r.errors, 0),
    lastBodyBytes: results.at(-1)!.lastBodyBytes,
    answered: results.reduce((n, r) => n + r.answered, 0),
  };
}

/**
 * Measures `request` against the service (or the instance at `serviceUrl`) and against a bare
 * node:http server returning the same body, in alternating slices.
 */
export async function sideBySide(
  ctx: BenchContext,
  figure: string,
  request: Omit<LoadOptions, "url">,
  path: string,
  serviceUrl = ctx.serviceUrl,
  /** Another request to the service (by default to the same path) measured in the same rounds, for a ratio that the machine's drift between figures does not skew. */
  companion?: Omit<LoadOptions, "url"> & { url?: string },
  /** The CPU time so far (µs) of what answers at `serviceUrl`: by default this process (instances run in it). */
  serviceCpu: () => Promise<number> = ownCpu,
): Promise<BenchRow & { measured: LoadResult; referenced: LoadResult; companion: LoadResult | null }> {
  const url = `${serviceUrl}${path}`;
  const get = () => fetch(url, { method: request.method ?? "GET", headers: request.headers, body: request.body });
  // Seeding runs in this process and holds its event loop for seconds: a kept-alive connection
  // may be closed by the server just as it is reused (ECONNRESET). Once more on a fresh one.
  const sample = await get().catch(get);
  const body = Buffer.from(await sample.arrayBuffer());
  if (sample.status !== 200) throw new Error(`${figure}: HTTP ${sample.status}: ${body.toString()}`);
  const reference = await ctx.reference(body);
  const service: LoadResult[] = [];
  const bare: LoadResult[] = [];
  const companions: LoadResult[] = [];
  // CPU time per request answered: the service's and the reference's. Unlike a rate, it hardly
  // moves with what else the machine runs.
  let serviceCpuTotal = 0;
  let bareCpu = 0;
  const timed = async (cpu: () => Promise<number>, load: () => Promise<LoadResult>, into: LoadResult[]) => {
    const before = await cpu();
    into.push(await load());
    return (await cpu()) - before;
  };
  try {
    const durationMs = Math.max(500, Math.round(ctx.durationMs / ROUNDS));
    for (let round = 0; round < ROUNDS; round++) {
      const warmupMs = round === 0 ? FIRST_WARMUP_MS : WARMUP_MS;
      const measureService = async () => {
        serviceCpuTotal += await timed(serviceCpu, () => ctx.load({ ...request, url, durationMs, warmupMs }), service);
      };
      const measureCompanion = async () => {
        if (!companion) return;
        companions.push(await ctx.load({ ...companion, url: companion.url ?? url, durationMs, warmupMs }));
      };
      bareCpu += await timed(
        reference.cpuMicros,
        () => ctx.load({ ...request, url: reference.url, durationMs, warmupMs }),
        bare,
      );
      // The service and its companion one after the other, so that the machine's drift between
      // them is the least; the companion first in every other round, so neither always follows.
      if (round % 2 === 1) await measureCompanion();
      await measureService();
      if (round % 2 === 0) await measureCompanion();
    }
  } finally {
    await reference.stop();
  }
  const measured = combine(service);
  const referenced = combine(bare);
  const suspect =
    measured.errors > 0 || Object.keys(measured.statuses).some((s) => s !== "200")
      ? ` (statuses ${JSON.stringify(measured.statuses)}, ${measured.errors} errors)`
      : "";
  const cpu = {
    service: serviceCpuTotal / Math.max(measured.answered, 1),
    bare: bareCpu / Math.max(referenced.answered, 1),
  };
  return {
    figure: `${figure} (${(body.length / 1024).toFixed(1)} KB)`,
    value: `${format.load(measured)}, CPU ${cpu.service.toFixed(0)} µs/req${suspect}`,
    reference: `node:http, same body: ${format.load(referenced)}, CPU ${cpu.bare.toFixed(0)} µs/req`,
    ratio: format.ratio(measured.requestsPerSecond, referenced.requestsPerSecond),
    measured,
    referenced,
    companion: companion ? combine(companions) : null,
  };
}

/** This process's CPU time so far (µs). */
async function ownCpu(): Promise<number> {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** A QUERY of the comment list with `body`. */
export const query = (body: Record<string, unknown>) => ({
  method: "QUERY",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** The personalization members of a read by the seeded viewer (whose reactions on page 1 are `mine`). */
export function viewerProof(ctx: BenchContext): { author_public_key: string; author_signature: string } {
  const { siteId, pageSlug, viewer } = ctx.seeded;
  return {
    author_public_key: viewer.key,
    author_signature: viewer.sign(signatureArrays.queryComments(siteId, pageSlug)),
  };
}

export default async function reads(ctx: BenchContext): Promise<BenchRow[]> {
  const { siteId, pageSlug } = ctx.seeded;
  const page = `/api/v1/sites/${siteId}/pages/${pageSlug}`;
  const rows: BenchRow[] = [];
  rows.push(
    await sideBySide(
      ctx,
      `QUERY page 1 (20) of ${ctx.seeded.commentCount}, anonymous, cached`,
      query({ page: 1, per_page: 20 }),
      `${page}/comments`,
    ),
  );
  rows.push(
    await sideBySide(
      ctx,
      `QUERY page 400 (20) of ${ctx.seeded.commentCount}, anonymous, cached`,
      query({ page: 400, per_page: 20 }),
      `${page}/comments`,
    ),
  );
  rows.push(
    await sideBySide(
      ctx,
      "QUERY page 1 (20), personalized, cached",
      query({ page: 1, per_page: 20, ...viewerProof(ctx) }),
      `${page}/comments`,
    ),
  );
  rows.push(...(await requestLogCost(ctx, `${page}/comments`)));
  rows.push(await sideBySide(ctx, "GET room", {}, `${page}/room`));
  rows.push(await sideBySide(ctx, "GET page roles", {}, `${page}/roles`));
  rows.push(await sideBySide(ctx, "GET moderators", {}, `${page}/moderators`));
  rows.push(await sideBySide(ctx, "GET site roles", {}, `/api/v1/sites/${siteId}/roles`));
  return rows;
}

/** Rounds of the request log's figure and of its control: pairs, the levels swapped between a pair's two. */
const LOG_COST_ROUNDS = 32;
const LOG_COST_SLICE_MS = 1000;

/**
 * What the request log costs: the cached page 1 on two instances run as npm start runs the
 * service (processes of their own, JSON lines on stdout into a file), loaded at the same moments
 * while they share one CPU (the bench and its load generator on the other): one at the default
 * level, a line per request, the other at `warn`, none, their levels swapped between slices as an
 * operator would switch them (the file edited, SIGHUP). Taken one after the other on one instance,
 * the two sides' rates moved by 30% from one slice to the next on this machine, more than the log
 * costs; at the same moments on one CPU, what the machine does meanwhile weighs on both alike.
 * A round's ratio is the default level's rate (and CPU time a request) against `warn`'s; the
 * geometric mean of two rounds with the levels swapped takes out what differs between the two
 * processes; the figure is the median of those pairs. Then the control: the same rounds with both
 * instances at the default level, the file edited and re-read alike (a key that takes effect on
 * restart toggled); it says how far the figure strays when nothing differs.
 */
async function requestLogCost(ctx: BenchContext, path: string): Promise<BenchRow[]> {
  const level = ctx.config.log.level;
  const retry = ctx.config.queue.retryBaseMs;
  const instances = [
    await ctx.startProcess({ overrides: { "log.level": level } }),
    await ctx.startProcess({ overrides: { "log.level": level } }),
  ] as const;
  const request = query({ page: 1, per_page: 20 });
  /** Both instances loaded at once (half the connections each): each one's result and CPU µs a request. */
  const atOnce = (durationMs: number, warmupMs: number) =>
    Promise.all(
      instances.map(async (instance) => {
        const before = await instance.cpuMicros();
        const result = await ctx.load({
          ...request,
          url: `${instance.url}${path}`,
          connections: Math.max(1, Math.round(ctx.connections / 2)),
          durationMs,
          warmupMs,
        });
        return { result, cpu: ((await instance.cpuMicros()) - before) / Math.max(result.answered, 1) };
      }),
    );
  /** Rounds with instance `r % 2` configured by `measured` and the other by `reference`. */
  const rounds = async (measured: Record<string, unknown>, reference: Record<string, unknown>) => {
    const sides = { measured: [] as LoadResult[], reference: [] as LoadResult[] };
    const rates: number[] = [];
    const cpus: number[] = [];
    const cpu = { measured: 0, reference: 0 };
    for (let round = 0; round < LOG_COST_ROUNDS; round++) {
      const m = round % 2;
      await Promise.all(instances.map((instance, i) => instance.reconfigure(i === m ? measured : reference)));
      const results = await atOnce(LOG_COST_SLICE_MS, WARMUP_MS);
      const [ours, theirs] = [results[m]!, results[1 - m]!];
      sides.measured.push(ours.result);
      sides.reference.push(theirs.result);
      rates.push(ours.result.requestsPerSecond / theirs.result.requestsPerSecond);
      cpus.push(ours.cpu / theirs.cpu);
      cpu.measured += ours.cpu * ours.result.answered;
      cpu.reference += theirs.cpu * theirs.result.answered;
    }
    const [ours, theirs] = [combine(sides.measured), combine(sides.reference)];
    return {
      ours,
      theirs,
      rate: swappedPairs(rates),
      cpu: swappedPairs(cpus),
      cpuPerRequest: { ours: cpu.measured / ours.answered, theirs: cpu.reference / theirs.answered },
    };
  };
  try {
    await atOnce(FIRST_WARMUP_MS, FIRST_WARMUP_MS);
    const { log, control } = await ctx.onOneCpu(instances, async () => ({
      log: await rounds({ "log.level": level }, { "log.level": "warn" }),
      control: await rounds(
        { "log.level": level, "queue.retry_base_ms": retry },
        { "log.level": level, "queue.retry_base_ms": retry + 1 },
      ),
    }));
    // Against bare node:http, one of the instances alone as npm start runs it: at the default level.
    const bare = await sideBySide(
      ctx,
      `QUERY page 1 (20), cached, an instance as npm start runs it, log.level ${level}`,
      request,
      path,
      instances[0].url,
      undefined,
      instances[0].cpuMicros,
    );
    const cpuChange = (ratio: number) => `${ratio < 1 ? "−" : "+"}${(Math.abs(ratio - 1) * 100).toFixed(1)}%`;
    const pairs = (figure: { median: number; low: number; high: number }) =>
      `the median of ${LOG_COST_ROUNDS / 2} swapped pairs, ${format.ratio(figure.low, 1)}-${format.ratio(figure.high, 1)}`;
    // To a tenth of a percent: the goal is a percent away.
    const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
    const side = (result: LoadResult, cpu: number) => `${format.load(result)}, CPU ${cpu.toFixed(0)} µs/req`;
    return [
      { ...bare, ratio: `${bare.ratio} (goal ≥ 70%)` },
      {
        figure: `QUERY page 1 (20), cached, log.level ${level} against warn: two instances at once on one CPU`,
        value: side(log.ours, log.cpuPerRequest.ours),
        reference: `log.level warn: ${side(log.theirs, log.cpuPerRequest.theirs)}`,
        ratio: `${percent(log.rate.median)} of warn (goal ≥ 95%; ${pairs(log.rate)}); CPU a request ${cpuChange(log.cpu.median)} (${pairs(log.cpu)})`,
      },
      {
        figure: `the control: both at ${level}, re-read alike`,
        value: side(control.ours, control.cpuPerRequest.ours),
        reference: `the same: ${side(control.theirs, control.cpuPerRequest.theirs)}`,
        ratio: `${percent(control.rate.median)} (${pairs(control.rate)}); CPU a request ${cpuChange(control.cpu.median)}`,
      },
    ];
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
  }
}

/** Ratios of rounds that swap the two sides' processes in turn: each pair's geometric mean (what one process does better cancels), their median and range. */
function swappedPairs(ratios: number[]): { median: number; low: number; high: number } {
  const pairs: number[] = [];
  for (let i = 0; i + 1 < ratios.length; i += 2) pairs.push(Math.sqrt(ratios[i]! * ratios[i + 1]!));
  pairs.sort((a, b) => a - b);
  return {
    median: (pairs[(pairs.length - 1) >> 1]! + pairs[pairs.length >> 1]!) / 2,
    low: pairs[0]!,
    high: pairs.at(-1)!,
  };
}
