// Live figures: submit → message_created delivery latency with 1 and with 500 open streams on
// one page (the streams are opened, and the comments submitted, by a second process:
// stream-clients.ts), and how much the service's RSS grows for the 500 streams. The service
// runs in the bench process, so its RSS is this process's. With PostgreSQL, also the latency
// to a stream on another instance.
import { fork } from "node:child_process";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { format, type BenchContext, type BenchRow } from "./section.ts";
import type { StreamClientsMessage, StreamClientsOptions } from "./stream-clients.ts";

const MANY = 500;
const SUBMISSIONS = 20;
const PAGE = "live";

interface Run {
  p50: number;
  p99: number;
  /** Median submit → 202. */
  acceptedP50: number;
  missed: number;
  /** RSS once every stream is open, less RSS before, in bytes (and the same for the JS heap). */
  rssGrowth: number;
  heapGrowth: number;
}

// Memory is read after a full collection, so garbage does not count as growth.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Forks the clients, waits until their streams are open, measures RSS, lets them submit. */
async function run(ctx: BenchContext, streams: number, submissions: number, url = ctx.serviceUrl): Promise<Run> {
  const options: StreamClientsOptions = {
    url,
    siteId: ctx.seeded.siteId,
    pageSlug: PAGE,
    origin: ctx.seeded.origin,
    streams,
    submissions,
  };
  collect();
  const before = process.memoryUsage();
  const child = fork(join(import.meta.dirname, "stream-clients.ts"), [JSON.stringify(options)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = () =>
    new Promise<StreamClientsMessage>((resolve, reject) => {
      const failed = (code: number | null) => reject(new Error(`stream clients exited with ${code}`));
      child.once("exit", failed);
      child.once("message", (message: StreamClientsMessage) => {
        child.off("exit", failed);
        resolve(message);
      });
    });
  try {
    await next();
    // Let the connects' transient garbage go before the reading.
    await new Promise((r) => setTimeout(r, 1000));
    collect();
    const after = process.memoryUsage();
    const result = next();
    child.send("go");
    const message = await result;
    if (!("latencies" in message)) throw new Error("unexpected message from the stream clients");
    const sorted = [...message.latencies].sort((a, b) => a - b);
    const accepted = [...message.accepted].sort((a, b) => a - b);
    return {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      acceptedP50: percentile(accepted, 50),
      missed: message.missed,
      rssGrowth: after.rss - before.rss,
      heapGrowth: after.heapUsed - before.heapUsed,
    };
  } finally {
    if (child.exitCode === null) child.kill();
  }
}

export default async function live(ctx: BenchContext): Promise<BenchRow[]> {
  // Warm-up: provisions the page's room and runs every path once.
  await run(ctx, 1, 2);
  const one = await run(ctx, 1, SUBMISSIONS);
  const many = await run(ctx, MANY, SUBMISSIONS);
  const missed = (r: Run) => (r.missed > 0 ? ` (${r.missed} deliveries missed)` : "");
  const latency = (r: Run) =>
    `p50 ${format.ms(r.p50)}, p99 ${format.ms(r.p99)} (202 after ${format.ms(r.acceptedP50)})${missed(r)}`;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const rows: BenchRow[] = [
    { figure: "submit → message_created, 1 stream", value: latency(one), reference: "", ratio: "" },
    {
      figure: `submit → message_created, ${MANY} streams on one page`,
      value: latency(many),
      reference: `1 stream: p99 ${format.ms(one.p99)}`,
      ratio: `p99 ${many.p99 >= one.p99 ? "+" : "−"}${format.ms(Math.abs(many.p99 - one.p99))} (goal ≤ +100 ms)`,
    },
    {
      figure: `service RSS growth for ${MANY} open streams`,
      value: `${mb(many.rssGrowth)} (JS heap ${mb(many.heapGrowth)})`,
      reference: "goal < 30 MB",
      ratio: "",
    },
  ];
  // Across instances (PostgreSQL only): the stream and the submissions on an API-only instance;
  // the bench instance sends and projects, and the event reaches the other one by NOTIFY.
  if (ctx.database.kind === "postgres") {
    const other = await ctx.startInstance({ worker: false });
    const across = await run(ctx, 1, SUBMISSIONS, other.url);
    rows.push({
      figure: "submit → message_created, 1 stream on another instance",
      value: latency(across),
      reference: `same instance: p99 ${format.ms(one.p99)}`,
      ratio: `p99 ${across.p99 >= one.p99 ? "+" : "−"}${format.ms(Math.abs(across.p99 - one.p99))}`,
    });
  }
  return rows;
}
