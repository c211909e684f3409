// The live section's client side, run as its own process (forked by live.ts) so that parsing
// 500 streams does not share an event loop, or an RSS, with the service it measures. It opens
// `streams` SSE streams on one page, reports ready once each has its typing snapshot, then on
// "go" submits `submissions` comments one after another and times, per stream, submit →
// message_created for each. Times are taken in this process alone.
import { Agent, request, type IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import { Visitor } from "../support/visitor.ts";

export interface StreamClientsOptions {
  url: string;
  siteId: string;
  pageSlug: string;
  origin: string;
  streams: number;
  submissions: number;
}

/** Latencies in ms: submit → message_created per stream, and submit → the 202 answer per submission. */
export type StreamClientsMessage = { ready: true } | { latencies: number[]; accepted: number[]; missed: number };

const options = JSON.parse(process.argv[2] ?? "{}") as StreamClientsOptions;
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const path = `/api/v1/sites/${options.siteId}/pages/${options.pageSlug}/sse`;
/** Per submission id: the times its message_created reached each stream. */
const arrivals = new Map<string, number[]>();
const responses: IncomingMessage[] = [];
let snapshots = 0;

function open(): Promise<void> {
  const url = new URL(`${options.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, agent, headers: { accept: "text/event-stream" } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
        responses.push(res);
        let buffer = "";
        let first = true;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!block.includes("\ndata: ")) continue;
            if (first) {
              first = false;
              snapshots++;
              resolve();
              continue;
            }
            const submission = /"type":"message_created".*"submission_id":"([^"]+)"/.exec(block)?.[1];
            if (submission) {
              const at = performance.now();
              const times = arrivals.get(submission) ?? [];
              times.push(at);
              arrivals.set(submission, times);
            }
          }
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function submitAll(): Promise<{ latencies: number[]; accepted: number[]; missed: number }> {
  const visitor = new Visitor(options.url, options.origin);
  const latencies: number[] = [];
  const accepted: number[] = [];
  let missed = 0;
  for (let i = 0; i < options.submissions; i++) {
    // Signed and solved ahead, so the clock covers the service only.
    const body = await visitor.commentBody(options.siteId, options.pageSlug, `live ${i}`);
    const started = performance.now();
    const res = await visitor.post(`/api/v1/sites/${options.siteId}/pages/${options.pageSlug}/comments`, body, {
      "idempotency-key": randomUUID(),
    });
    if (res.status !== 202) throw new Error(`comment answered ${res.status}: ${await res.text()}`);
    accepted.push(performance.now() - started);
    const { submission_id } = (await res.json()) as { submission_id: string };
    const deadline = Date.now() + 10_000;
    while ((arrivals.get(submission_id)?.length ?? 0) < options.streams && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
    const times = arrivals.get(submission_id) ?? [];
    missed += options.streams - times.length;
    for (const at of times) latencies.push(at - started);
  }
  return { latencies, accepted, missed };
}

const send = (message: StreamClientsMessage) => process.send!(message);
// Opened in small groups: the instance admits a burst of connects, not an unbounded one.
for (let i = 0; i < options.streams; i += 50)
  await Promise.all(Array.from({ length: Math.min(50, options.streams - i) }, open));
if (snapshots !== options.streams) throw new Error(`only ${snapshots} of ${options.streams} streams opened`);
send({ ready: true });
process.once("message", async () => {
  send(await submitAll());
  for (const res of responses) res.destroy();
  process.disconnect();
});
