// A load generator, run as its own process so it does not share an event loop with what it
// measures: N keep-alive connections, each with one request in flight, for a duration. Prints
// one JSON LoadResult line on stdout.
//   node --import tsx test/bench/load-generator.ts '{"url":"http://127.0.0.1:8080/x","method":"QUERY","body":"{}"}'
import { Agent, request } from "node:http";
import type { LoadOptions, LoadResult } from "./section.ts";

const options = JSON.parse(process.argv[2] ?? "{}") as LoadOptions;
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

// Latencies in microseconds, preallocated; the measuring window only appends.
const latencies = new Float64Array(4_000_000);
let count = 0;
let errors = 0;
let lastBodyBytes = 0;
let answered = 0;
const statuses: Record<string, number> = {};
let measuring = false;
let stopped = false;

function once(): Promise<void> {
  return new Promise((resolve) => {
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
          if (measuring && count < latencies.length) {
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
}

async function connection(): Promise<void> {
  while (!stopped) await once();
}

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
const result: LoadResult = {
  requests: count,
  requestsPerSecond: count / seconds,
  p50Ms: percentile(50),
  p99Ms: percentile(99),
  statuses,
  errors,
  lastBodyBytes,
  answered,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
