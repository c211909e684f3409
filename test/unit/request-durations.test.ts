// The request duration histogram: the text a scrape writes is prom-client's own Histogram's for
// the same requests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Histogram, Registry } from "prom-client";
import { RequestDurations } from "../../src/metrics/request-durations.ts";

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function pair() {
  const ours = new Registry();
  const theirs = new Registry();
  const configuration = { name: "http_seconds", help: "Latency.", buckets: BUCKETS };
  const durations = new RequestDurations({ ...configuration, registers: [ours] });
  const reference = new Histogram({ ...configuration, labelNames: ["route", "method", "status"], registers: [theirs] });
  const record = (route: string, method: string, status: number, seconds: number) => {
    durations.record(route, method, status, seconds);
    reference.observe({ route, method, status: String(status) }, seconds);
  };
  // Label sets may come out in another order: compared line by line, sorted.
  const lines = async (registry: Registry) => (await registry.metrics()).split("\n").sort();
  return { durations, record, scraped: async () => [await lines(ours), await lines(theirs)] as const };
}

test("a scrape writes what prom-client's histogram writes for the same requests, bounds and all", async () => {
  const { record, scraped } = pair();
  const routes = ["listComments", "postComment", "unrouted"];
  const methods = ["GET", "QUERY", "POST"];
  // Every bound exactly, just above it, zero, above every bound, across label sets and statuses.
  const values = [0, 1e-6, ...BUCKETS, ...BUCKETS.map((bound) => bound * 1.001), 10.5, 3600];
  values.forEach((seconds, i) => record(routes[i % 3]!, methods[(i >> 1) % 3]!, [200, 202, 0, 404][i % 4]!, seconds));
  const [ours, theirs] = await scraped();
  assert.deepEqual(ours, theirs);
  assert.ok(ours.some((line) => line.startsWith('http_seconds_bucket{le="+Inf",route="listComments"')));
  // A second scrape after more requests: counts go on from where they were.
  for (let i = 0; i < 1000; i++) record(routes[i % 3]!, "GET", 200, (i % 97) / 1000);
  const [again, reference] = await scraped();
  assert.deepEqual(again, reference);
  assert.notDeepEqual(again, ours);
});

test("the histogram's values as read in code (get) are prom-client's, and a reset empties them", async () => {
  const { durations, record } = pair();
  record("listComments", "QUERY", 200, 0.003);
  record("listComments", "QUERY", 200, 0.2);
  const count = (await durations.get()).values.find((value) => value.metricName === "http_seconds_count");
  assert.deepEqual(count?.labels, { route: "listComments", method: "QUERY", status: "200" });
  assert.equal(count?.value, 2);
  durations.reset();
  assert.deepEqual((await durations.get()).values, []);
});
