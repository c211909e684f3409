// Count figures (--sections counts): a 200-page count read (QUERY …/page-counts, cached after
// its first run like the comment lists) measured in the same rounds as a cached single-page
// comment read (page 1 of the seeded page), so the ratio between them does not depend on the
// machine's drift between figures; each next to a bare node:http server returning its body.
// Goal: the count read at least 50% of the comment read's throughput.
import { sideBySide } from "./reads.ts";
import { format, type BenchContext, type BenchRow } from "./section.ts";

export default async function counts(ctx: BenchContext): Promise<BenchRow[]> {
  const { siteId, pageSlug } = ctx.seeded;
  // The seeded page among 199 others (most without comments): what an index page asks.
  const pages = [pageSlug, ...Array.from({ length: 199 }, (_, i) => `index-post-${i}`)];
  const json = { method: "QUERY", headers: { "content-type": "application/json" } };
  const commentRead = { ...json, body: JSON.stringify({ page: 1 }) };
  const figure = await sideBySide(
    ctx,
    "200-page count read (cached)",
    { ...json, body: JSON.stringify({ pages }) },
    `/api/v1/sites/${siteId}/page-counts`,
    ctx.serviceUrl,
    { ...commentRead, url: `${ctx.serviceUrl}/api/v1/sites/${siteId}/pages/${pageSlug}/comments` },
  );
  const single = figure.companion!;
  return [
    figure,
    {
      figure: "  the same rounds' cached single-page comment read",
      value: format.load(single),
      reference: "",
      ratio: "",
    },
    {
      figure: "  200-page counts vs a single-page comment read (goal ≥ 50%)",
      value: format.rate(figure.measured.requestsPerSecond),
      reference: format.rate(single.requestsPerSecond),
      ratio: format.ratio(figure.measured.requestsPerSecond, single.requestsPerSecond),
    },
  ];
}
