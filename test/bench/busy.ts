// A busy page: one new comment per second (posted through the API, performed by the worker,
// pushed back by Synapse and projected) on the seeded 10,000-comment page while 20 clients read
// its newest comments continuously. Each new comment drops the page's cached reads, so readers
// keep meeting misses. Figures: the readers' throughput against the same read on the idle page
// (cached), and read-your-writes: from each comment's projection (the page-changed signal after
// its row is stored) until a read of the page (the same request the readers send) shows it.
import { randomUUID } from "node:crypto";
import { query } from "./reads.ts";
import { format, type BenchContext, type BenchRow } from "./section.ts";

const POST_INTERVAL_MS = 1000;
/** At least this long under load, so that a handful of comments is posted. */
const MIN_DURATION_MS = 10_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export default async function busy(ctx: BenchContext): Promise<BenchRow[]> {
  const { siteId, pageSlug, viewer } = ctx.seeded;
  const db = ctx.service.services.db;
  const path = `/api/v1/sites/${siteId}/pages/${pageSlug}/comments`;
  const newest = { url: `${ctx.serviceUrl}${path}`, ...query({ page: 1, per_page: 20, order: "desc" }) };
  const durationMs = Math.max(MIN_DURATION_MS, ctx.durationMs);

  const idle = await ctx.load({ ...newest, durationMs });

  // Submissions posted and not yet seen projected; the moment their projection was signalled.
  const unprojected = new Set<string>();
  const projectedAt = new Map<string, number>();
  const latencies: number[] = [];
  const probes: Promise<void>[] = [];
  const shows = async (submissionId: string) => {
    const res = await fetch(newest.url, newest);
    return (await res.text()).includes(submissionId);
  };
  const probe = async (submissionId: string) => {
    while (!(await shows(submissionId))) await new Promise((r) => setTimeout(r, 5));
    latencies.push(performance.now() - projectedAt.get(submissionId)!);
  };
  const stopListening = ctx.service.services.signals.onPageChanged((change) => {
    if (
      change.siteId !== siteId ||
      (change.pageSlug !== null && change.pageSlug !== pageSlug) ||
      unprojected.size === 0
    )
      return;
    const at = performance.now();
    const ids = [...unprojected];
    void db.comment.findMany({ where: { submissionId: { in: ids } }, select: { submissionId: true } }).then((rows) => {
      for (const { submissionId } of rows) {
        if (!unprojected.delete(submissionId!)) continue;
        projectedAt.set(submissionId!, at);
        probes.push(probe(submissionId!));
      }
    });
  });

  let reading = true;
  const readers = ctx.load({ ...newest, durationMs }).finally(() => (reading = false));
  let posted = 0;
  try {
    for (let next = performance.now(); reading; next += POST_INTERVAL_MS) {
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      const res = await viewer.post(path, await viewer.commentBody(siteId, pageSlug, `busy page comment ${posted}`), {
        "idempotency-key": randomUUID(),
      });
      if (res.status !== 202) throw new Error(`busy: comment answered ${res.status}: ${await res.text()}`);
      unprojected.add(((await res.json()) as { submission_id: string }).submission_id);
      posted++;
    }
    const busyLoad = await readers;
    // The last comments' projection may come after the readers stopped.
    const deadline = Date.now() + 30_000;
    while (unprojected.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await Promise.all(probes);
    const sorted = latencies.sort((a, b) => a - b);
    return [
      {
        figure: `busy page: 20 readers of the newest 20 of ${ctx.seeded.commentCount}, one comment/s`,
        value: format.load(busyLoad),
        reference: `the same read, idle page (cached): ${format.load(idle)}`,
        ratio: format.ratio(busyLoad.requestsPerSecond, idle.requestsPerSecond),
      },
      {
        figure: `busy page: read-your-writes, projection → listed (${sorted.length} of ${posted} comments)`,
        value: `p50 ${format.ms(percentile(sorted, 50))}, p99 ${format.ms(percentile(sorted, 99))}, max ${format.ms(sorted.at(-1) ?? NaN)}`,
        reference: "goal: every one within 1000 ms",
        ratio: "",
      },
    ];
  } finally {
    stopListening();
  }
}
