// Read figures, with the read cache on (a repeated read is a cache hit): QUERY of page 1 and
// page 400 of the seeded 10,000-comment page (anonymous) and a personalized page 1, each next
// to a bare node:http server returning the same body; what the request log costs (page 1 at
// the default level against an instance at warn); the room and roles reads likewise. Every figure is driven by the load generator in a second process.
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
  {
    rounds = ROUNDS,
    cpuOf = { service: ownCpu, companion: ownCpu },
    before,
  }: {
    rounds?: number;
    /** The CPU time so far (µs) of what answers the service's and the companion's requests: by default this process (instances run in it). */
    cpuOf?: { service: () => Promise<number>; companion: () => Promise<number> };
    /** What runs before each of a side's slices, unmeasured (the request log's figure switches its instance's log level). */
    before?: { service: () => Promise<void>; companion: () => Promise<void> };
  } = {},
): Promise<
  BenchRow & {
    measured: LoadResult;
    referenced: LoadResult;
    companion: LoadResult | null;
    /** Each round's service and companion results, in round order. */
    byRound: { service: LoadResult; companion: LoadResult | null }[];
    /** CPU µs per request answered: the service, the bare reference, the companion. */
    cpu: { service: number; bare: number; companion: number | null };
  }
> {
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
  // CPU time per request answered: the service's, the companion's and the reference's. Unlike a
  // rate, it hardly moves with what else the machine runs.
  let serviceCpu = 0;
  let bareCpu = 0;
  let companionCpu = 0;
  const timed = async (cpu: () => Promise<number>, load: () => Promise<LoadResult>, into: LoadResult[]) => {
    const before = await cpu();
    into.push(await load());
    return (await cpu()) - before;
  };
  try {
    const durationMs = Math.max(500, Math.round(ctx.durationMs / rounds));
    for (let round = 0; round < rounds; round++) {
      const warmupMs = round === 0 ? FIRST_WARMUP_MS : WARMUP_MS;
      const measureService = async () => {
        await before?.service();
        serviceCpu += await timed(cpuOf.service, () => ctx.load({ ...request, url, durationMs, warmupMs }), service);
      };
      const measureCompanion = async () => {
        if (!companion) return;
        await before?.companion();
        companionCpu += await timed(
          cpuOf.companion,
          () => ctx.load({ ...companion, url: companion.url ?? url, durationMs, warmupMs }),
          companions,
        );
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
    service: serviceCpu / Math.max(measured.answered, 1),
    bare: bareCpu / Math.max(referenced.answered, 1),
    companion: companion ? companionCpu / Math.max(combine(companions).answered, 1) : null,
  };
  return {
    figure: `${figure} (${(body.length / 1024).toFixed(1)} KB)`,
    value: `${format.load(measured)}, CPU ${cpu.service.toFixed(0)} µs/req${suspect}`,
    reference: `node:http, same body: ${format.load(referenced)}, CPU ${cpu.bare.toFixed(0)} µs/req`,
    ratio: format.ratio(measured.requestsPerSecond, referenced.requestsPerSecond),
    measured,
    referenced,
    companion: companion ? combine(companions) : null,
    byRound: service.map((result, i) => ({ service: result, companion: companions[i] ?? null })),
    cpu,
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

/**
 * Rounds of the request log's figure: its two sides differ by a few percent, while this machine's
 * rate moves by more than that from one slice to the next (its rounds read from about 60% to 200%
 * and more), so it takes many short alternations, and its ratio is the median of the rounds'
 * ratios. The control beside it says how far that median strays when nothing differs.
 */
const LOG_COST_ROUNDS = 36;

/**
 * What the request log costs: the cached page 1 on one instance run as npm start runs the service
 * (a process of its own, its JSON lines on stdout into a file), its log level switched between
 * slices as an operator would switch it (the file edited, SIGHUP): at the default level, a line
 * per request, against `warn`, none. One process for both sides, so that what differs is the log
 * alone: two processes, one at each level, differed by up to several percent with both at `warn`.
 * Then the control: the same alternation with the default level on both sides, the file edited
 * and re-read before every slice alike (a key that takes effect on restart toggled).
 */
async function requestLogCost(ctx: BenchContext, path: string): Promise<BenchRow[]> {
  const level = ctx.config.log.level;
  const retry = ctx.config.queue.retryBaseMs;
  const instance = await ctx.startProcess({ overrides: { "log.level": level } });
  const request = query({ page: 1, per_page: 20 });
  /** The rounds of `figure` with the instance configured by `service` and by `companion` in turn. */
  const rounds = async (figure: string, service: Record<string, unknown>, companion: Record<string, unknown>) => {
    const row = await sideBySide(ctx, figure, request, path, instance.url, request, {
      rounds: LOG_COST_ROUNDS,
      cpuOf: { service: instance.cpuMicros, companion: instance.cpuMicros },
      before: { service: () => instance.reconfigure(service), companion: () => instance.reconfigure(companion) },
    });
    const ratios = row.byRound
      .map((r) => r.service.requestsPerSecond / r.companion!.requestsPerSecond)
      .sort((a, b) => a - b);
    const median = (ratios[(ratios.length - 1) >> 1]! + ratios[ratios.length >> 1]!) / 2;
    const cpu = ((row.cpu.service - row.cpu.companion!) / row.cpu.companion!) * 100;
    const summary = `the median of ${ratios.length} rounds, ${format.ratio(ratios[0]!, 1)}-${format.ratio(ratios.at(-1)!, 1)}; all rounds together ${format.ratio(row.measured.requestsPerSecond, row.companion!.requestsPerSecond)}`;
    return { row, median, summary, cpu: `${cpu < 0 ? "" : "+"}${cpu.toFixed(0)}%` };
  };
  try {
    const log = await rounds(
      `QUERY page 1 (20), cached, log.level ${level}`,
      { "log.level": level },
      { "log.level": "warn" },
    );
    const control = await rounds(
      `QUERY page 1 (20), cached, log.level ${level}`,
      { "log.level": level, "queue.retry_base_ms": retry },
      { "log.level": level, "queue.retry_base_ms": retry + 1 },
    );
    return [
      {
        figure: `${log.row.figure}, against log.level warn`,
        value: log.row.value,
        reference: `${log.row.reference}; log.level warn: ${format.load(log.row.companion!)}, CPU ${log.row.cpu.companion!.toFixed(0)} µs/req`,
        ratio: `${log.row.ratio} of bare (goal ≥ 70%); ${format.ratio(log.median, 1)} of warn (goal ≥ 95%; ${log.summary}); the log's CPU per request: ${log.cpu}`,
      },
      {
        figure: `${control.row.figure}, against itself (the control: both sides at ${level}, re-read alike)`,
        value: control.row.value,
        reference: `the same: ${format.load(control.row.companion!)}, CPU ${control.row.cpu.companion!.toFixed(0)} µs/req`,
        ratio: `${format.ratio(control.median, 1)} (${control.summary}); CPU per request: ${control.cpu}`,
      },
    ];
  } finally {
    await instance.stop();
  }
}
