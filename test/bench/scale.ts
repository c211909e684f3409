// Scale figures (`--sections scale`): the read model filled to size by cloning the real first
// comment of the seeded page in SQL — 1,000,000 comments on one page, and 100,000 pages of 10
// comments (a room with the real room's projected state, a member row, positions and a count
// each) — then read uncached (an instance as npm start runs one, in a process of its own, with
// `read_cache.max_entries = 0`; 10 connections, 20 a page): page 1, the middle page, the last
// page and newest-first page 1 of the big page, and page 1 of a random one of the 100,000 pages,
// each beside the same read of the seeded 10,000-comment page measured in the same rounds. Cold:
// first slices on fresh instances, each warmed on another page's reads and then the OS page cache
// dropped (when run as root; PostgreSQL's own buffers stay warm), beside the 10k page's read made
// cold the same way; warm: rounds on one instance after the database's files were read into the
// OS page cache (a server that has run a while with the memory for its database: a few seconds of
// random pages after a drop leave most of theirs on disk) and a warm-up. Every fill is checked
// against the database (counts, positions) and every figure's answer against the rows it should
// hold. Also the service's RSS and the database's size. Goals: every figure ≥ 80% of
// the 10k figure, p99 ≤ 25 ms.
import { execSync } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { combine, query } from "./reads.ts";
import { pageStatement } from "../../src/features/comments/comment-read-store.ts";
import { format, type BenchContext, type BenchRow, type LoadOptions, type LoadResult } from "./section.ts";

const BIG_PAGE = "scale-1m";
const BIG_COMMENTS = 1_000_000;
const PAGES = 100_000;
const PER_PAGE_COMMENTS = 10;
const PAGE_PREFIX = "scale-p";
/** The page a cold slice's instance reads before the drop: one of the 100,000, none the figures read. */
const WARM_UP_SLUG = `${PAGE_PREFIX}0`;
const PER_PAGE = 20;
const CONNECTIONS = 10;
const ROUNDS = 3;

type Db = BenchContext["service"]["services"]["db"];

/** The integers 1..n as rows `s(i)` (a recursive CTE: both databases have it). */
const series = (n: number) => `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})`;

async function columnsOf(db: Db, kind: string, table: string): Promise<string[]> {
  if (kind === "sqlite")
    return (
      (await db.$queryRawUnsafe(`SELECT name FROM pragma_table_info('${table}')`)) as Array<{ name: string }>
    ).map((c) => c.name);
  return (
    (await db.$queryRawUnsafe(
      `SELECT column_name::text AS name FROM information_schema.columns WHERE table_name = '${table}' AND table_schema = current_schema() ORDER BY ordinal_position`,
    )) as Array<{ name: string }>
  ).map((c) => c.name);
}

/**
 * Inserts n copies of the row of `table` that `where` selects, one per i in 1..n: each column as
 * the template row has it unless `overrides` gives an SQL expression (of `t.` and `i`) for it.
 */
async function cloneRows(
  ctx: BenchContext,
  table: string,
  where: string,
  n: number,
  overrides: Record<string, string>,
  skip: string[] = [],
  templates = 1,
): Promise<void> {
  const db = ctx.service.services.db;
  const columns = (await columnsOf(db, ctx.database.kind, table)).filter((c) => !skip.includes(c));
  const values = columns.map((c) => overrides[c] ?? `t."${c}"`);
  const inserted = await db.$executeRawUnsafe(
    `${series(n)} INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) SELECT ${values.join(", ")} FROM "${table}" t, s WHERE ${where}`,
  );
  if (inserted !== n * templates) throw new Error(`scale fill: ${table} got ${inserted} rows, not ${n * templates}`);
}

/** Fills the big page and the many pages from the seeded page's first (real) comment; checks them. */
async function fill(ctx: BenchContext): Promise<void> {
  const { siteId, pageSlug, roomId } = ctx.seeded;
  const db = ctx.service.services.db;
  const first = (await db.comment.findFirst({
    where: { siteId, pageSlug, authorType: "visitor" },
    orderBy: { originServerTs: "asc" },
  }))!;
  const template = `t."eventId" = '${first.eventId}'`;
  const member = `t."roomId" = '${roomId}' AND t."userId" = '${first.sender}'`;
  const room = `t."roomId" = '${roomId}'`;
  const page = (i: string) => `'${PAGE_PREFIX}' || ((${i} - 1) / ${PER_PAGE_COMMENTS})`;
  const pageRoom = (i: string) => `'!scale' || ((${i} - 1) / ${PER_PAGE_COMMENTS}) || ':localhost'`;
  const bigRoom = `'!scale-big:localhost'`;
  const ts = (i: string) => `t."originServerTs" + ${i}`;
  // Event ids as Matrix makes them, 44 characters that do not sort as the comments were written
  // (a hash's): the i-th's first eight are i times Knuth's multiplicative constant modulo 2^32,
  // in hex, distinct for every i. Ids that sorted as they were written would put a page's
  // comments side by side in every index keyed by event id, as no homeserver's ids do.
  const hashedId = (tag: string) => {
    const hex =
      ctx.database.kind === "sqlite"
        ? `printf('%08x', (i * 2654435761) % 4294967296)`
        : `lpad(to_hex((i::bigint * 2654435761) % 4294967296), 8, '0')`;
    return `'$' || ${hex} || '${tag.padEnd(35, "_")}'`;
  };
  const bigId = hashedId("big");
  const manyId = hashedId("many");

  // The big page: a room, its member, a million comments, their positions and count.
  await cloneRows(ctx, "Room", room, 1, { roomId: bigRoom, pageSlug: `'${BIG_PAGE}'` });
  await cloneRows(ctx, "RoomMember", member, 1, { roomId: bigRoom });
  // Each room's projected state (name, power levels, …) as the real room has it.
  const states = await db.roomState.count({ where: { roomId } });
  await cloneRows(ctx, "RoomState", room, 1, { roomId: bigRoom }, [], states);
  await cloneRows(ctx, "MatrixEvent", template, BIG_COMMENTS, { eventId: bigId, roomId: bigRoom }, ["seq"]);
  await cloneRows(ctx, "Comment", template, BIG_COMMENTS, {
    eventId: bigId,
    roomId: bigRoom,
    pageSlug: `'${BIG_PAGE}'`,
    submissionId: "NULL",
    originServerTs: ts("i"),
  });
  await cloneRows(ctx, "CommentPosition", template, BIG_COMMENTS, {
    eventId: bigId,
    pageSlug: `'${BIG_PAGE}'`,
    originServerTs: ts("i"),
    position: "i",
  });
  await db.pageCommentCount.create({ data: { siteId, pageSlug: BIG_PAGE, count: BIG_COMMENTS } });

  // The many pages: a room and a member each, ten comments each.
  const rooms = PAGES;
  await cloneRows(ctx, "Room", room, rooms, {
    roomId: `'!scale' || (i - 1) || ':localhost'`,
    pageSlug: `'${PAGE_PREFIX}' || (i - 1)`,
  });
  await cloneRows(ctx, "RoomMember", member, rooms, { roomId: `'!scale' || (i - 1) || ':localhost'` });
  await cloneRows(ctx, "RoomState", room, rooms, { roomId: `'!scale' || (i - 1) || ':localhost'` }, [], states);
  const comments = PAGES * PER_PAGE_COMMENTS;
  await cloneRows(ctx, "MatrixEvent", template, comments, { eventId: manyId, roomId: pageRoom("i") }, ["seq"]);
  await cloneRows(ctx, "Comment", template, comments, {
    eventId: manyId,
    roomId: pageRoom("i"),
    pageSlug: page("i"),
    submissionId: "NULL",
    originServerTs: ts("i"),
  });
  await cloneRows(ctx, "CommentPosition", template, comments, {
    eventId: manyId,
    pageSlug: page("i"),
    originServerTs: ts("i"),
    position: `((i - 1) % ${PER_PAGE_COMMENTS}) + 1`,
  });
  await db.$executeRawUnsafe(
    `${series(PAGES)} INSERT INTO "PageCommentCount" ("siteId", "pageSlug", "count") SELECT '${siteId}', '${PAGE_PREFIX}' || (i - 1), ${PER_PAGE_COMMENTS} FROM s`,
  );

  // Checked: what each page holds, as counted, numbered 1..count without a gap or a repeat.
  const counted = async (slugCondition: string) =>
    (await db.$queryRawUnsafe(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT p."pageSlug" || '/' || p."position") AS distinctPositions, MAX(p."position") AS maxPosition,
        (SELECT COUNT(*) FROM "Comment" c WHERE c."siteId" = '${siteId}' AND ${slugCondition.replaceAll("p.", "c.")}) AS comments,
        (SELECT SUM(n."count") FROM "PageCommentCount" n WHERE n."siteId" = '${siteId}' AND ${slugCondition.replaceAll("p.", "n.")}) AS counted
       FROM "CommentPosition" p WHERE p."siteId" = '${siteId}' AND ${slugCondition}`,
    )) as Array<Record<string, bigint | number>>;
  const expect = (what: string, row: Record<string, bigint | number>, total: number, maxPosition: number) => {
    const numbers = Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), Number(v)]));
    const wrong =
      numbers.n !== total ||
      numbers.distinctpositions !== total ||
      numbers.comments !== total ||
      numbers.counted !== total ||
      numbers.maxposition !== maxPosition;
    if (wrong) throw new Error(`scale fill: ${what} is not as filled: ${JSON.stringify(numbers)}`);
  };
  expect("the big page", (await counted(`p."pageSlug" = '${BIG_PAGE}'`))[0]!, BIG_COMMENTS, BIG_COMMENTS);
  expect("the many pages", (await counted(`p."pageSlug" LIKE '${PAGE_PREFIX}%'`))[0]!, comments, PER_PAGE_COMMENTS);
  // The bulk load settled, as the database would soon have it on its own: its statistics
  // (autovacuum) and its writes checkpointed, so that no checkpoint of 4 GB of new rows runs
  // beside the first figures' reads.
  if (ctx.database.kind === "postgres") {
    await db.$executeRawUnsafe("VACUUM ANALYZE");
    await db.$executeRawUnsafe("CHECKPOINT");
  } else await db.$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
}

/** The comment ids a page read must answer, from the positions table. */
async function expectedIds(ctx: BenchContext, slug: string, from: number, to: number, desc: boolean) {
  const rows = await ctx.service.services.db.commentPosition.findMany({
    where: { siteId: ctx.seeded.siteId, pageSlug: slug, position: { gte: from, lte: to } },
    orderBy: { position: desc ? "desc" : "asc" },
    select: { eventId: true },
  });
  return rows.map((r) => r.eventId);
}

interface Read {
  name: string;
  slug: string;
  body: Record<string, unknown>;
  /** Positions the answer holds, and their order. */
  positions: { from: number; to: number; desc: boolean };
}

/** Reads `read` once on `url` and compares its items and total with the database. */
async function checkAnswer(ctx: BenchContext, url: string, read: Read, total: number): Promise<void> {
  const res = await fetch(`${url}/api/v1/sites/${ctx.seeded.siteId}/pages/${read.slug}/comments`, query(read.body));
  const answer = (await res.json()) as { data: Array<{ event_id: string }>; meta: { total: number } };
  const want = await expectedIds(ctx, read.slug, read.positions.from, read.positions.to, read.positions.desc);
  const got = answer.data.map((m) => m.event_id);
  if (res.status !== 200 || answer.meta.total !== total || JSON.stringify(got) !== JSON.stringify(want))
    throw new Error(
      `scale: ${read.name} of ${read.slug} answered ${res.status}, total ${answer.meta?.total} (want ${total}), ${got.length} items ${got[0]}…${got.at(-1)} (want ${want[0]}…${want.at(-1)})`,
    );
}

/** Drops the OS page cache (root only); false when it could not. */
function dropOsCache(): boolean {
  try {
    execSync("sync && echo 1 > /proc/sys/vm/drop_caches", { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The database's files: SQLite's file and its WAL; PostgreSQL's database directory (readable as root). */
async function databaseFiles(ctx: BenchContext): Promise<string[]> {
  if (ctx.database.kind === "sqlite") {
    const path = ctx.database.url.replace(/^file:/, "");
    return [path, `${path}-wal`].filter((file) => existsSync(file));
  }
  const [row] = (await ctx.service.services.db.$queryRawUnsafe(
    "SELECT current_setting('data_directory') || '/base/' || oid AS dir FROM pg_database WHERE datname = current_database()",
  )) as Array<{ dir: string }>;
  try {
    return readdirSync(row!.dir).map((name) => join(row!.dir, name));
  } catch {
    return [];
  }
}

/** Reads `files` once, so that the OS page cache holds them; false when they could not all be read. */
function readIntoOsCache(files: string[]): boolean {
  if (files.length === 0) return false;
  const buffer = Buffer.allocUnsafe(1 << 20);
  try {
    for (const file of files) {
      const fd = openSync(file, "r");
      try {
        while (readSync(fd, buffer, 0, buffer.length, null) > 0);
      } finally {
        closeSync(fd);
      }
    }
    return true;
  } catch {
    return false;
  }
}

async function databaseBytes(ctx: BenchContext): Promise<number> {
  if (ctx.database.kind === "sqlite")
    return (await databaseFiles(ctx)).reduce((bytes, file) => bytes + statSync(file).size, 0);
  const [row] = (await ctx.service.services.db.$queryRawUnsafe(
    "SELECT pg_database_size(current_database()) AS bytes",
  )) as Array<{ bytes: bigint }>;
  return Number(row!.bytes);
}

export default async function scale(ctx: BenchContext): Promise<BenchRow[]> {
  const { commentCount, pageSlug } = ctx.seeded;
  const started = Date.now();
  await fill(ctx);
  ctx.log(
    `scale: filled ${BIG_COMMENTS} comments on one page and ${PAGES} pages of ${PER_PAGE_COMMENTS} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  const bigPages = BIG_COMMENTS / PER_PAGE;
  const smallPages = Math.ceil(commentCount / PER_PAGE);
  const middle = (pages: number) => Math.ceil(pages / 2);
  const pageRead = (name: string, slug: string, page: number, count: number, desc = false): Read => {
    const from = desc ? count - page * PER_PAGE + 1 : (page - 1) * PER_PAGE + 1;
    return {
      name,
      slug,
      body: { page, per_page: PER_PAGE, ...(desc ? { order: "desc" } : {}) },
      positions: { from: Math.max(1, from), to: Math.min(count, from + PER_PAGE - 1), desc },
    };
  };
  const pairs: Array<{ figure: string; small: Read; big: Read; random?: boolean }> = [
    {
      figure: "page 1",
      small: pageRead("page 1", pageSlug, 1, commentCount),
      big: pageRead("page 1", BIG_PAGE, 1, BIG_COMMENTS),
    },
    {
      figure: "middle page",
      small: pageRead("middle", pageSlug, middle(smallPages), commentCount),
      big: pageRead("middle", BIG_PAGE, middle(bigPages), BIG_COMMENTS),
    },
    {
      figure: "last page",
      small: pageRead("last", pageSlug, smallPages, commentCount),
      big: pageRead("last", BIG_PAGE, bigPages, BIG_COMMENTS),
    },
    {
      figure: "newest first, page 1",
      small: pageRead("newest first", pageSlug, 1, commentCount, true),
      big: pageRead("newest first", BIG_PAGE, 1, BIG_COMMENTS, true),
    },
    {
      figure: `a random one of ${PAGES} pages of ${PER_PAGE_COMMENTS}, page 1`,
      small: pageRead("page 1", pageSlug, 1, commentCount),
      big: pageRead("page 1", `${PAGE_PREFIX}${Math.floor(PAGES / 3)}`, 1, PER_PAGE_COMMENTS),
      random: true,
    },
  ];
  const rows: BenchRow[] = [];
  /** The largest RSS of a warm figure's instance after its rounds. */
  let rssBytes = 0;
  const path = (slug: string) => `/api/v1/sites/${ctx.seeded.siteId}/pages/${slug}/comments`;
  const slice = Math.max(500, Math.round(ctx.durationMs / ROUNDS));
  // Each figure's instance runs as npm start runs one, in a process of its own: in the bench's
  // process its heap would hold the bench's too, and its collections pause for them.
  const uncachedInstance = () => ctx.startProcess({ overrides: { "read_cache.max_entries": 0 } });
  const options = (url: string, read: Read, random: boolean): LoadOptions => ({
    ...query(read.body),
    url: `${url}${path(read.slug)}`,
    connections: CONNECTIONS,
    ...(random ? { randomPath: { template: path(`${PAGE_PREFIX}{n}`), count: PAGES } } : {}),
  });
  /**
   * A fresh instance's first reads of `read` after the OS page cache was dropped. Before the drop
   * it has made the same statement's reads of another page (WARM_UP_SLUG) for a second, so its
   * code is compiled and its connections used, as an instance that has been serving has: what is
   * cold is the database, not the process.
   */
  const coldSlice = async (read: Read, random: boolean) => {
    const instance = await uncachedInstance();
    try {
      await ctx.load({
        ...options(instance.url, { ...read, slug: WARM_UP_SLUG }, false),
        durationMs: 1000,
        warmupMs: 0,
      });
      const dropped = dropOsCache();
      return {
        dropped,
        result: await ctx.load({ ...options(instance.url, read, random), durationMs: slice, warmupMs: 0 }),
      };
    } finally {
      await instance.stop();
    }
  };
  for (const { figure, small, big, random } of pairs) {
    // Cold, the 10k page's read and then the big one's, each on a fresh instance, in rounds: one
    // cold slice is a second or two of a disk whose speed varies from one minute to the next.
    const coldSmalls: LoadResult[] = [];
    const coldBigs: LoadResult[] = [];
    let dropped = true;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [read, results, isRandom] of [
        [small, coldSmalls, false],
        [big, coldBigs, !!random],
      ] as const) {
        const cold = await coldSlice(read, isRandom);
        dropped &&= cold.dropped;
        results.push(cold.result);
      }
    }
    const coldSmall = combine(coldSmalls);
    const coldBig = combine(coldBigs);
    const warmed = readIntoOsCache(await databaseFiles(ctx));
    const instance = await uncachedInstance();
    try {
      await checkAnswer(ctx, instance.url, big, random ? PER_PAGE_COMMENTS : BIG_COMMENTS);
      await checkAnswer(ctx, instance.url, small, commentCount);
      const smalls: LoadResult[] = [];
      const bigs: LoadResult[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        smalls.push(await ctx.load({ ...options(instance.url, small, false), durationMs: slice, warmupMs: 300 }));
        bigs.push(await ctx.load({ ...options(instance.url, big, !!random), durationMs: slice, warmupMs: 300 }));
      }
      rssBytes = Math.max(rssBytes, instance.rssBytes());
      const warm = combine(bigs);
      const reference = combine(smalls);
      const all = [coldSmall, coldBig, warm, reference];
      const suspect = all.some((r) => r.errors > 0 || Object.keys(r.statuses).some((s) => s !== "200"))
        ? ` (statuses ${JSON.stringify(all.map((r) => r.statuses))})`
        : "";
      const size = random ? `${PAGES} pages × ${PER_PAGE_COMMENTS}` : `${BIG_COMMENTS} on one page`;
      rows.push({
        figure: `scale: ${figure} (${size}), uncached, warm${warmed ? " (database files read into the OS page cache)" : " (OS page cache as left: the database files could not be read)"}`,
        value: format.load(warm) + suspect,
        reference: `10k page, same read, same rounds: ${format.load(reference)}`,
        ratio: `${format.ratio(warm.requestsPerSecond, reference.requestsPerSecond)} (goal ≥ 80%, p99 ≤ 25 ms)`,
      });
      rows.push({
        figure: `scale: ${figure} (${size}), uncached, cold${dropped ? " (OS page cache dropped)" : " (OS page cache kept: not root)"}, ${ROUNDS} rounds`,
        value: format.load(coldBig),
        reference: `10k page, same read, cold the same way: ${format.load(coldSmall)}`,
        ratio: `${format.ratio(coldBig.requestsPerSecond, coldSmall.requestsPerSecond)} (goal ≥ 80%, p99 ≤ 25 ms); by round ${coldBigs.map((r, i) => format.ratio(r.requestsPerSecond, coldSmalls[i]!.requestsPerSecond)).join(", ")}, p99 ${coldBigs.map((r) => r.p99Ms.toFixed(1)).join(", ")} ms`,
      });
    } finally {
      await instance.stop();
    }
  }
  if (ctx.database.kind === "postgres") await logPlans(ctx);
  rows.push({
    figure: `scale: RSS of the service's process after a warm figure's rounds (the largest); database size (${ctx.database.kind})`,
    value: `RSS ${(rssBytes / 2 ** 20).toFixed(0)} MB; database ${((await databaseBytes(ctx)) / 2 ** 20).toFixed(0)} MB`,
    reference: "",
    ratio: "",
  });
  return rows;
}

/**
 * PostgreSQL's plans of the list read, as the driver runs it (a generic plan: plan_cache_mode
 * force_generic_plan, set per session by src/db/postgres-session.ts), executed: the big page's
 * first page in either order, and a small page's, into the log.
 */
async function logPlans(ctx: BenchContext): Promise<void> {
  const { siteId } = ctx.seeded;
  const reads = [
    { order: "asc" as const, slug: BIG_PAGE, first: 1, last: PER_PAGE },
    { order: "desc" as const, slug: BIG_PAGE, first: 1, last: PER_PAGE },
    { order: "asc" as const, slug: `${PAGE_PREFIX}${Math.floor(PAGES / 7)}`, first: 1, last: PER_PAGE },
  ];
  const db = ctx.service.services.db;
  for (const read of reads) {
    const plan = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL plan_cache_mode = force_generic_plan");
      await tx.$executeRawUnsafe(`PREPARE scale_plan(text, text, int, int) AS ${pageStatement(read.order)}`);
      try {
        return (await tx.$queryRawUnsafe(
          `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE scale_plan('${siteId}', '${read.slug}', ${read.first}, ${read.last})`,
        )) as Array<{ "QUERY PLAN": string }>;
      } finally {
        await tx.$executeRawUnsafe("DEALLOCATE scale_plan");
      }
    });
    ctx.log(
      `scale: plan of ${read.order} ranks ${read.first}-${read.last} of ${read.slug}:\n${plan.map((r) => `    ${r["QUERY PLAN"]}`).join("\n")}`,
    );
  }
}
