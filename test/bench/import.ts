// Import figures: a generated 100,000-comment Disqus export (1,000 pages of 100 comments, each
// page's by 25 of 2,000 authors, a third of them replies) imported by `npm run import` in its own process, in
// comments per second beside raw appservice sends in the same run (the same room count, the
// same concurrency across rooms, one send at a time per room, the same kind of content), and
// the import process's peak RSS. The raw sends go to rooms of their own, before the import.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { format, type BenchContext, type BenchRow } from "./section.ts";

const PAGES = 1_000;
const PER_PAGE = 100;
const AUTHORS = 2_000;
/** Raw sends for the reference: enough to reach a steady rate. */
const RAW_SENDS = 5_000;
const CONCURRENCY = 8;

/** Writes the export as a stream (its size is never in memory). */
async function writeDisqusExport(file: string): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write(
    '<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n',
  );
  for (let p = 0; p < PAGES; p++)
    await write(
      `<thread dsq:id="t${p}"><id>p${p}</id><link>https://bench.example/posts/${p}/</link><title>Post ${p}</title></thread>\n`,
    );
  const start = Date.UTC(2015, 0, 1);
  for (let p = 0; p < PAGES; p++) {
    for (let i = 0; i < PER_PAGE; i++) {
      const id = p * PER_PAGE + i;
      // A page's discussion: 25 of the 2,000 authors, 4 comments each.
      const author = (p * 13 + (i % 25)) % AUTHORS;
      const parent = i > 0 && i % 3 === 0 ? `<parent dsq:id="${id - 1 - (i % 2)}"/>` : "";
      await write(
        `<post dsq:id="${id}"><message><![CDATA[<p>Comment ${id} on post ${p}: <b>bold</b> and <a href="https://example.org/${id}">a link</a>.</p>]]></message><createdAt>${new Date(start + id * 60_000).toISOString()}</createdAt><isDeleted>false</isDeleted><isSpam>false</isSpam><author><name>Author ${author}</name><isAnonymous>false</isAnonymous><username>author${author}</username></author><thread dsq:id="t${p}"/>${parent}</post>\n`,
      );
    }
  }
  await write("</disqus>\n");
  out.end();
  await once(out, "finish");
}

/** Raw appservice sends: `rooms` rooms, one send at a time per room, `concurrency` rooms side by side. */
async function rawSends(ctx: BenchContext, rooms: string[], userId: string, total: number): Promise<number> {
  let next = 0;
  const lane = async (roomId: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const url = `${ctx.homeserver.url}/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${encodeURIComponent(`raw.${randomUUID()}`)}?user_id=${encodeURIComponent(userId)}&ts=${Date.UTC(2015, 0, 1) + i}`;
      const res = await fetch(url, {
        method: "PUT",
        headers: { authorization: `Bearer ${ctx.homeserver.asToken}`, "content-type": "application/json" },
        body: JSON.stringify({
          msgtype: "m.text",
          body: `Raw comment ${i}: bold and a link.`,
          format: "org.matrix.custom.html",
          formatted_body: `<p>Raw comment ${i}: <b>bold</b> and <a href="https://example.org/${i}">a link</a>.</p>`,
        }),
      });
      if (!res.ok) throw new Error(`import: raw send answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  const perRoom = Math.ceil(total / rooms.length);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let r = next++; r < rooms.length; r = next++) await lane(rooms[r]!, perRoom);
    }),
  );
  return (perRoom * rooms.length) / (Number(process.hrtime.bigint() - started) / 1e9);
}

export default async function importSection(ctx: BenchContext): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), "bench-import-"));
  try {
    const file = join(work, "disqus.xml");
    await writeDisqusExport(file);
    const siteId = ctx.seeded.siteId;
    const hs = ctx.service.services.homeserver;

    // The reference: rooms like the import's (one per page), a registered author, raw sends.
    const userId = hs.names.importedAuthorUserId(siteId, "bench:raw");
    await hs.registerUser(hs.names.importedAuthorLocalpart(siteId, "bench:raw"));
    const rooms: string[] = [];
    for (let r = 0; r < 50; r++) {
      const roomId = await ctx.service.services.homeserver.createRoom({
        aliasLocalpart: `${ctx.config.matrix.namespacePrefix}bench_raw_${randomUUID().slice(0, 8)}`,
        name: `raw ${r}`,
        roomVersion: ctx.config.matrix.roomVersion,
        isSpace: false,
      });
      await hs.joinRoom(userId, roomId!);
      rooms.push(roomId!);
    }
    const rawRate = await rawSends(ctx, rooms, userId, RAW_SENDS);
    ctx.log(`import: raw appservice sends ${rawRate.toFixed(0)}/s`);

    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "test/bench/import-child.ts", file, siteId, String(CONCURRENCY)],
      {
        env: { ...process.env, BENCH_IMPORT_CONFIG: JSON.stringify(ctx.config) },
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => ctx.log(chunk.toString("utf8").trim()));
    const [code] = (await once(child, "close")) as [number];
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const [reportLine, rssLine] = output.trim().split("\n").slice(-2);
    const report = JSON.parse(reportLine!) as { comments: number; errors: number };
    const maxRss = (JSON.parse(rssLine!) as { max_rss_bytes: number }).max_rss_bytes;
    if (code !== 0) ctx.log(`import: exit ${code}, ${report.errors} errors`);
    const rate = report.comments / seconds;
    return [
      {
        figure: `import: ${report.comments} Disqus comments on ${PAGES} pages (${CONCURRENCY} pages side by side)`,
        value: format.rate(rate, "comments/s"),
        reference: `${format.rate(rawRate, "sends/s")} raw AS sends`,
        ratio: `${((rate / rawRate) * 100).toFixed(0)}% (goal >= 80%)`,
      },
      {
        figure: "import: peak RSS of the import process",
        value: `${(maxRss / 1024 / 1024).toFixed(0)} MB`,
        reference: "goal <= 300 MB",
        ratio: "",
      },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
