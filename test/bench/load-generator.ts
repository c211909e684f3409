// A load generator, run as its own process so it does not share an event loop with what it
// measures: N keep-alive connections, each with one request in flight, for a duration. One
// process serves a whole bench run (forked by bench.ts): each message is a LoadOptions, each
// reply its LoadResult. Kept running, its code stays compiled from one slice to the next, so a
// slice's warm-up warms the server, not the generator (a fresh process a slice, as before, spent
// the first part of every slice starting up and compiling itself).
import { Agent, request } from "node:http";
import type { LoadOptions, LoadResult } from "./section.ts";

/** Latencies in microseconds kept per run: the measuring window only appends. */
const MAX_LATENCIES = 4_000_000;

async function run(options: LoadOptions): Promise<LoadResult> {
  const connections = options.connections ?? 20;
  const durationMs = options.durationMs ?? 5000;
  const warmupMs = options.warmupMs ?? 1000;
  const url = new URL(options.url);
  const randomPath = options.randomPath;
  const body = options.body === undefined ? null : Buffer.from(options.body);
  const headers: Record<string, string | number> = {
    ...options.headers,
    ...(body ? { "content-length": body.length } : {}),
  };
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies = new Float64Array(MAX_LATENCIES);
  let count = 0;
  let errors = 0;
  let lastBodyBytes = 0;
  let answered = 0;
  const statuses: Record<string, number> = {};
  let measuring = false;
  let stopped = false;

  const once = () =>
    new Promise<void>((resolve) => {
      const start = process.hrtime.bigint();
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: randomPath
            ? randomPath.template.replace("{n}", String(Math.floor(Math.random() * randomPath.count)))
            : url.pathname + url.search,
          method: options.method ?? "GET",
          headers,
          agent,
        },
        (res) => {
          let bytes = 0;
          res.on("data", (chunk: Buffer) => (bytes += chunk.length));
          res.on("end", () => {
            if (measuring && count < MAX_LATENCIES) {
              latencies[count++] = Number(process.hrtime.bigint() - start) / 1000;
              statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
            }
            lastBodyBytes = bytes;
            answered++;
            resolve();
          });
        },
      );
      req.on("error", () => {
        if (measuring) errors++;
        resolve();
      });
      req.end(body ?? undefined);
    });
  const connection = async () => {
    while (!stopped) await once();
  };

  const loops = Array.from({ length: connections }, connection);
  await new Promise((r) => setTimeout(r, warmupMs));
  measuring = true;
  const started = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, durationMs));
  measuring = false;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  stopped = true;
  await Promise.all(loops);
  agent.destroy();

  const sorted = latencies.subarray(0, count).sort();
  const percentile = (p: number) =>
    count === 0 ? 0 : sorted[Math.min(count - 1, Math.floor((p / 100) * count))]! / 1000;
  return {
    requests: count,
    requestsPerSecond: count / seconds,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    statuses,
    errors,
    lastBodyBytes,
    answered,
  };
}

process.on("message", (message: { id: number; options: LoadOptions }) => {
  run(message.options).then(
    (result) => process.send!({ id: message.id, result }),
    (err: Error) => process.send!({ id: message.id, error: err.stack ?? String(err) }),
  );
});
