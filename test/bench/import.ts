// Import figures: a generated Disqus export (--import-pages pages of 100 comments, 100,000 by
// default; each page's by 25 of 2,000 authors, a third of them replies) imported by `npm run
// import` in its own process, in comments per second beside two references measured in the same
// run, and the import process's peak RSS:
// - raw appservice sends: m.room.message PUTs into existing rooms (the same concurrency across
//   rooms, one send at a time per room, the same kind of content);
// - the same Matrix requests raw: what a page needs of the homeserver whoever imports it (a room
//   created, each of its authors joined with a name and a time, its comments sent), each kind's
//   rate measured raw and combined in the import's proportions. The first is the issue's goal; the
//   second shows what the importer itself costs, since the homeserver's share is the same.
// The raw requests go to rooms of their own, before the import.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { format, type BenchContext, type BenchRow } from "./section.ts";

const PER_PAGE = 100;
const AUTHORS = 2_000;
/** A page's discussion is by this many authors: as many joins a page. */
const AUTHORS_PER_PAGE = 25;
/** Raw sends for the reference: enough to reach a steady rate. */
const RAW_SENDS = 5_000;
const RAW_ROOMS = 50;
/** Raw joins: this many users joined to each raw room. */
const RAW_JOINERS = 10;
const CONCURRENCY = 8;

/** Runs the tasks `CONCURRENCY` at a time; resolves how many ran per second. */
async function rate(tasks: Array<() => Promise<unknown>>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let t = next++; t < tasks.length; t = next++) await tasks[t]!();
    }),
  );
  return tasks.length / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** Writes the export as a stream (its size is never in memory). */
async function writeDisqusExport(file: string, pages: number): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write(
    '<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n',
  );
  for (let p = 0; p < pages; p++)
    await write(
      `<thread dsq:id="t${p}"><id>p${p}</id><link>https://bench.example/posts/${p}/</link><title>Post ${p}</title></thread>\n`,
    );
  const start = Date.UTC(2015, 0, 1);
  for (let p = 0; p < pages; p++) {
    for (let i = 0; i < PER_PAGE; i++) {
      const id = p * PER_PAGE + i;
      // A page's discussion: 25 of the 2,000 authors, 4 comments each.
      const author = (p * 13 + (i % AUTHORS_PER_PAGE)) % AUTHORS;
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

/** Raw appservice sends: one send at a time per room, `CONCURRENCY` rooms side by side. */
async function rawSends(ctx: BenchContext, rooms: string[], userId: string): Promise<number> {
  const perRoom = Math.ceil(RAW_SENDS / rooms.length);
  const lane = (roomId: string) => async () => {
    for (let i = 0; i < perRoom; i++) {
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
  return (await rate(rooms.map(lane))) * perRoom;
}

export default async function importSection(ctx: BenchContext): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), "bench-import-"));
  try {
    const file = join(work, "disqus.xml");
    const pages = ctx.importPages;
    await writeDisqusExport(file, pages);
    const siteId = ctx.seeded.siteId;
    const hs = ctx.service.services.homeserver;

    // The references: rooms created as the import's are (one per page), authors registered and
    // joined with a name and a time, raw sends.
    const rooms: string[] = [];
    const roomRate = await rate(
      Array.from({ length: RAW_ROOMS }, (_, r) => async () => {
        const roomId = await hs.createRoom({
          aliasLocalpart: `${ctx.config.matrix.namespacePrefix}bench_raw_${randomUUID().slice(0, 8)}`,
          name: `raw ${r}`,
          roomVersion: ctx.config.matrix.roomVersion,
          isSpace: false,
        });
        rooms.push(roomId!);
      }),
    );
    const joiners: string[] = [];
    for (let j = 0; j < RAW_JOINERS; j++) {
      await hs.registerUser(hs.names.importedAuthorLocalpart(siteId, `bench:joiner${j}`));
      joiners.push(hs.names.importedAuthorUserId(siteId, `bench:joiner${j}`));
    }
    const joinRate = await rate(
      rooms.flatMap((roomId) =>
        joiners.map((userId, j) => () => hs.joinAt(userId, roomId, `Joiner ${j}`, Date.UTC(2015, 0, 1))),
      ),
    );
    const userId = hs.names.importedAuthorUserId(siteId, "bench:raw");
    await hs.registerUser(hs.names.importedAuthorLocalpart(siteId, "bench:raw"));
    for (const roomId of rooms) await hs.joinRoom(userId, roomId);
    const sendRate = await rawSends(ctx, rooms, userId);
    ctx.log(
      `import: raw rooms created ${roomRate.toFixed(1)}/s, joins ${joinRate.toFixed(0)}/s, sends ${sendRate.toFixed(0)}/s`,
    );

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
    const imported = report.comments / seconds;
    // What the import's comments need of the homeserver, in seconds at the raw rates.
    const rawSeconds = report.comments / sendRate + (pages * AUTHORS_PER_PAGE) / joinRate + pages / roomRate;
    const sameRequests = report.comments / rawSeconds;
    return [
      {
        figure: `import: ${report.comments} Disqus comments on ${pages} pages (${CONCURRENCY} pages side by side)`,
        value: format.rate(imported, "comments/s"),
        reference: `${format.rate(sendRate, "sends/s")} raw AS sends`,
        ratio: `${((imported / sendRate) * 100).toFixed(0)}% (goal >= 80%)`,
      },
      {
        figure: `import: the same, beside the same Matrix requests raw (a room, ${AUTHORS_PER_PAGE} joins and ${PER_PAGE} sends a page)`,
        value: format.rate(imported, "comments/s"),
        reference: `${format.rate(sameRequests, "comments/s")} (rooms ${roomRate.toFixed(1)}/s, joins ${joinRate.toFixed(0)}/s, sends ${sendRate.toFixed(0)}/s raw)`,
        ratio: `${((imported / sameRequests) * 100).toFixed(0)}%`,
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
