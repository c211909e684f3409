// npm run bench: prints throughput and latency figures (nothing is asserted).
//   pure:  PoW check, signature verify, grapheme counting, request fingerprints
//   http:  QUERY comment lists and comment submissions against a real in-process service
//          (SQLite, worker off: it measures the API, not the homeserver)
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { randomBytes } from "node:crypto";
import { buildConfig } from "../../src/config/config.ts";
import { startService } from "../../src/server/app.ts";
import { checkChallengeResponse, issueChallenge, solveChallenge } from "../../src/security/pow.ts";
import { signatureArrays, verifySignature } from "../../src/security/author-proof.ts";
import { graphemeCount } from "../../src/security/graphemes.ts";
import { requestFingerprint } from "../../src/security/idempotency.ts";
import { Visitor } from "../support/visitor.ts";

function rate(name: string, iterations: number, fn: (i: number) => void): void {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`${name.padEnd(44)} ${(iterations / seconds).toFixed(0).padStart(10)} ops/s`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function latency(name: string, count: number, concurrency: number, request: (i: number) => Promise<Response>): Promise<void> {
  const times: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        const res = await request(i);
        await res.arrayBuffer();
        if (res.status >= 400) throw new Error(`${name}: HTTP ${res.status}`);
        times.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  times.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(44)} ${(count / seconds).toFixed(0).padStart(10)} req/s  p50 ${percentile(times, 50).toFixed(2)} ms  p95 ${percentile(times, 95).toFixed(2)} ms  (concurrency ${concurrency})`,
  );
}

console.log("# pure logic");
const secret = randomBytes(32);
const challenge = issueChallenge(secret, 16, Date.now());
const answer = solveChallenge(challenge.challenge, 16);
rate("PoW check (difficulty 16)", 50_000, () => checkChallengeResponse(secret, answer, Date.now()));
const visitor = new Visitor("http://unused");
const array = signatureArrays.postComment("site", "page", "a comment of some length", null, null, challenge.challenge);
const signature = Buffer.from(visitor.sign(array), "base64url");
rate("Ed25519 author signature verify", 20_000, () => verifySignature(visitor.publicKey, signature, array));
const text = "héllo 👋🏽 wörld 🇯🇵 ".repeat(600);
rate(`grapheme count (${text.length} UTF-16 units)`, 200, () => graphemeCount(text));
const body = Buffer.from(JSON.stringify({ content: text }));
rate("request fingerprint (10 KB body)", 20_000, () => requestFingerprint("POST", "/api/v1/sites/s/pages/p/comments", body));

console.log("# HTTP (in-process service, SQLite)");
const work = mkdtempSync(join(tmpdir(), "bench-"));
const config = buildConfig({
  server: { listen_port: 0 },
  database: { url: `file:${join(work, "bench.db")}` },
  matrix: { homeserver_url: "http://127.0.0.1:9", as_token: "bench", hs_token: "bench", registration_file: join(work, "reg.yaml") },
  security: { pow_difficulty: 8 },
  rate_limit: { enabled: false },
  sites: { bench: { origins: ["https://bench.example"] } },
});
const service = await startService(config, { worker: false, log: () => {} });
const db = service.services.db;
const now = Date.now();
await db.comment.createMany({
  data: Array.from({ length: 2000 }, (_, i) => ({
    eventId: `$bench${i}`,
    roomId: "!bench:localhost",
    siteId: "bench",
    pageSlug: "page",
    sender: "@someone:localhost",
    authorType: "matrix",
    displayName: "Someone",
    content: JSON.stringify({ type: "text", body: `comment ${i}`, format: null, formatted_body: null }),
    originServerTs: BigInt(now + i),
  })),
});
const list = (page: number) =>
  fetch(`${service.url}/api/v1/sites/bench/pages/page/comments`, { method: "QUERY", headers: { "content-type": "application/json" }, body: JSON.stringify({ page, per_page: 20 }) });
await latency("QUERY 20 comments of 2000", 1000, 1, (i) => list((i % 100) + 1));
await latency("QUERY 20 comments of 2000", 2000, 16, (i) => list((i % 100) + 1));

const writer = new Visitor(service.url, "https://bench.example");
const bodies = await Promise.all(Array.from({ length: 500 }, (_, i) => writer.commentBody("bench", "page", `posted ${i}`)));
await latency("POST comment (queued, 202)", bodies.length, 8, (i) => writer.post("/api/v1/sites/bench/pages/page/comments", bodies[i], { "idempotency-key": `bench-${i}` }));

const memory = process.memoryUsage();
console.log(`# memory: rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB`);
await service.stop();
