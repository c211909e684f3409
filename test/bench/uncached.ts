// Uncached read figures: the QUERY reads of reads.ts on a second instance with the read cache
// off (`read_cache.max_entries = 0`), so every read runs in full, each next to a bare node:http
// server with the same body and to Synapse's own `/messages?limit=20` of the same room, measured
// in the same run; the personalized read next to the anonymous one measured in the same rounds,
// and so the site-level reads (site and page roles, the operator's site list).
// Then single flight on the cached instance: 200 readers arriving right after
// an invalidation of the page, and how many executions of the read they caused.
import { combine, query, sideBySide, viewerProof } from "./reads.ts";
import { format, type BenchContext, type BenchRow, type LoadResult } from "./section.ts";

const READERS = 200;
const INVALIDATIONS = 3;

export default async function uncached(ctx: BenchContext): Promise<BenchRow[]> {
  const { siteId, pageSlug, commentCount } = ctx.seeded;
  const path = `/api/v1/sites/${siteId}/pages/${pageSlug}/comments`;
  const instance = await ctx.startInstance({ worker: false, overrides: { "read_cache.max_entries": 0 } });
  const rows: BenchRow[] = [];
  try {
    const synapse = await synapseMessages(ctx);
    const synapseText = `Synapse /messages?limit=20: ${format.load(synapse)}`;
    const figures = [
      { figure: `QUERY page 1 (20) of ${commentCount}, anonymous, uncached`, body: { page: 1, per_page: 20 } },
      { figure: `QUERY page 400 (20) of ${commentCount}, anonymous, uncached`, body: { page: 400, per_page: 20 } },
      {
        figure: `QUERY page 1 (20) of ${commentCount}, personalized, uncached`,
        body: { page: 1, per_page: 20, ...viewerProof(ctx) },
      },
    ];
    for (const { figure, body } of figures) {
      // A personalized read is compared with the anonymous one measured in the same rounds.
      const personal = "author_signature" in body;
      const row = await sideBySide(
        ctx,
        figure,
        query(body),
        path,
        instance.url,
        personal ? query({ page: body.page, per_page: body.per_page }) : undefined,
      );
      const personalized = row.companion
        ? `; ${format.ratio(row.measured.requestsPerSecond, row.companion.requestsPerSecond)} of anonymous (${format.rate(row.companion.requestsPerSecond)} in the same rounds)`
        : "";
      rows.push({
        figure: row.figure,
        value: row.value,
        reference: `${row.reference}; ${synapseText}`,
        ratio: `${row.ratio} of bare; ${(row.measured.requestsPerSecond / synapse.requestsPerSecond).toFixed(1)}× Synapse${personalized}`,
      });
    }
    // Site-level reads, each beside the anonymous page 1 read measured in the same rounds.
    const operator = { authorization: `Bearer ${ctx.config.security.operatorToken}` };
    const siteReads = [
      { figure: "GET site roles, uncached", path: `/api/v1/sites/${siteId}/roles`, request: { method: "GET" } },
      {
        figure: "GET page roles, uncached",
        path: `/api/v1/sites/${siteId}/pages/${pageSlug}/roles`,
        request: { method: "GET" },
      },
      {
        figure: "QUERY operator sites (20), uncached",
        path: "/api/v1/operator/sites",
        request: { ...query({ page: 1, per_page: 20 }), headers: { ...query({}).headers, ...operator } },
      },
    ];
    for (const read of siteReads) {
      const row = await sideBySide(ctx, read.figure, read.request, read.path, instance.url, {
        ...query({ page: 1, per_page: 20 }),
        url: `${instance.url}${path}`,
      });
      rows.push({
        figure: row.figure,
        value: row.value,
        reference: row.reference,
        ratio: `${row.ratio} of bare; ${format.ratio(row.measured.requestsPerSecond, row.companion!.requestsPerSecond)} of the page 1 read (${format.rate(row.companion!.requestsPerSecond)} in the same rounds)`,
      });
    }
  } finally {
    await instance.stop();
  }
  rows.push(await singleFlight(ctx, path));
  return rows;
}

/** Synapse's `/messages?dir=b&limit=20` of the seeded room as the appservice, in slices like the service's figures. */
async function synapseMessages(ctx: BenchContext): Promise<LoadResult> {
  const url = `${ctx.homeserver.url}/_matrix/client/v3/rooms/${encodeURIComponent(ctx.seeded.roomId)}/messages?dir=b&limit=20`;
  const headers = { authorization: `Bearer ${ctx.homeserver.asToken}` };
  const sample = await fetch(url, { headers });
  if (sample.status !== 200) throw new Error(`Synapse /messages answered ${sample.status}: ${await sample.text()}`);
  await sample.arrayBuffer();
  const durationMs = Math.max(500, Math.round(ctx.durationMs / 3));
  const slices: LoadResult[] = [];
  for (let i = 0; i < 3; i++) slices.push(await ctx.load({ url, headers, durationMs, warmupMs: 300 }));
  return combine(slices);
}

/**
 * 200 concurrent readers right after each of a few invalidations of the page; the executions
 * they caused, next to what else could make a trial read twice: another change of the page heard
 * during the trial (a read that started before it may not be stored), or the whole minute at
 * which cached bodies expire.
 */
async function singleFlight(ctx: BenchContext, path: string): Promise<BenchRow> {
  const { siteId, pageSlug } = ctx.seeded;
  const { signals, metrics } = ctx.service.services;
  const executions = () => metrics.sources.readCache!().executions;
  const read = async () => {
    const res = await fetch(`${ctx.serviceUrl}${path}`, query({ page: 1, per_page: 20 }));
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`single flight: read answered ${res.status}`);
  };
  await read();
  const counts: number[] = [];
  const heard: number[] = [];
  let acrossMinute = 0;
  let changes = 0;
  const stopListening = signals.onPageChanged((change) => {
    if (change.siteId === siteId && (change.pageSlug === pageSlug || change.pageSlug === null)) changes++;
  });
  try {
    for (let i = 0; i < INVALIDATIONS; i++) {
      const before = executions();
      const minute = Math.floor(Date.now() / 60_000);
      signals.pageChanged({ siteId, pageSlug });
      changes = 0;
      await Promise.all(Array.from({ length: READERS }, read));
      counts.push(executions() - before);
      heard.push(changes);
      if (Math.floor(Date.now() / 60_000) !== minute) acrossMinute++;
    }
  } finally {
    stopListening();
  }
  return {
    figure: `single flight: ${READERS} concurrent readers after an invalidation (×${INVALIDATIONS})`,
    value: `executions: ${counts.join(", ")} (other changes of the page during each trial: ${heard.join(", ")}; trials across a whole minute: ${acrossMinute})`,
    reference: "goal: 1 each",
    ratio: "",
  };
}
