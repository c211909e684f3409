// The HTTP request duration histogram, counted per request without prom-client's per-call work.
// prom-client's observe(labels, value) checks the labels, joins them into a key string, looks
// the key up and finds the bucket through numeric-string property keys: about a microsecond a
// request, a few percent of a cached read. Here a request finds its label set's tally through
// maps of the values themselves and adds one to an array slot; a scrape copies the tallies into
// the histogram's own entries, which prom-client then writes as ever (test/unit/metrics.test.ts
// compares the output with a plain Histogram's for the same requests).
import { Histogram, type Registry } from "prom-client";

type Label = "route" | "method" | "status";

/** A label set's counts, and the entry prom-client reads (`Histogram.hashMap`'s values). */
interface Tally {
  /** Requests per bucket, not cumulative; the last slot: above every bound. */
  counts: number[];
  sum: number;
  count: number;
  entry: { labels: Record<Label, string>; bucketValues: Record<number, number>; sum: number; count: number };
}

export class RequestDurations extends Histogram<Label> {
  private readonly bounds: number[];
  private readonly tallies = new Map<string, Map<string, Map<number, Tally>>>();

  constructor(configuration: { name: string; help: string; buckets: number[]; registers: Registry[] }) {
    super({
      labelNames: ["route", "method", "status"],
      collect() {
        (this as RequestDurations).copyTallies();
      },
      ...configuration,
    });
    // As prom-client takes them: ascending.
    this.bounds = configuration.buckets;
  }

  /** One request done: its route id, method, status and duration. */
  record(route: string, method: string, status: number, seconds: number): void {
    const tally = this.tallyOf(route, method, status);
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++;
    tally.counts[bucket]!++;
    tally.sum += seconds;
    tally.count++;
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor resets too, before the tallies exist.
    this.tallies?.clear();
  }

  private tallyOf(route: string, method: string, status: number): Tally {
    let byMethod = this.tallies.get(route);
    if (!byMethod) this.tallies.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let tally = byStatus.get(status);
    if (!tally) {
      tally = {
        counts: new Array<number>(this.bounds.length + 1).fill(0),
        sum: 0,
        count: 0,
        entry: { labels: { route, method, status: String(status) }, bucketValues: {}, sum: 0, count: 0 },
      };
      byStatus.set(status, tally);
    }
    return tally;
  }

  /** Before a scrape: each label set's counts into the entry prom-client writes out. */
  private copyTallies(): void {
    const hashMap = (this as unknown as { hashMap: Record<string, Tally["entry"]> }).hashMap;
    for (const byMethod of this.tallies.values())
      for (const byStatus of byMethod.values())
        for (const tally of byStatus.values()) {
          const { entry, counts } = tally;
          this.bounds.forEach((bound, i) => (entry.bucketValues[bound] = counts[i]!));
          entry.sum = tally.sum;
          entry.count = tally.count;
          // prom-client's key for the label set, should it ever look one up.
          const { route, method, status } = entry.labels;
          hashMap[`method:${method},route:${route},status:${status},`] = entry;
        }
  }
}
