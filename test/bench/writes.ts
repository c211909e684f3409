// Write figures: a sustained queue drain — 200 comments over 10 pages, queued while the worker
// is stopped, then performed by the worker at queue.concurrency — next to raw Synapse sends as
// the appservice (the same virtual users, rooms, event contents and concurrency) from this
// process; and the write path end to end — 200 comments posted by 8 clients while the worker
// and the projection run, until all are listed — next to raw sends 8 at a time. The reference runs before and after the drain and the drain is compared with their
// mean, so a homeserver slowing down as its database grows favours neither side; each phase
// starts once the service has projected the previous phase's events.
import { randomUUID } from "node:crypto";
import type { SubmissionPayload } from "../../src/queue/payloads.ts";
import { PROOF_KEY } from "../../src/matrix/events.ts";
import type { MatrixNames } from "../../src/matrix/names.ts";
import { Visitor } from "../support/visitor.ts";
import { format, type BenchContext, type BenchRow } from "./section.ts";

const ROOMS = 10;
const COMMENTS = 200;
/** Visitors posting side by side in the end-to-end figure. */
const CLIENTS = 8;

interface RawSend {
  roomId: string;
  userId: string;
  content: Record<string, unknown>;
}

export default async function writes(ctx: BenchContext): Promise<BenchRow[]> {
  const { service } = ctx;
  const db = service.services.db;
  const siteId = ctx.seeded.siteId;
  const concurrency = ctx.config.queue.concurrency;
  const pages = Array.from({ length: ROOMS }, (_, i) => `writes-${i}`);
  const visitors = pages.map(() => new Visitor(ctx.serviceUrl, ctx.seeded.origin));
  const post = async (i: number, text: string) => {
    const page = pages[i % ROOMS]!;
    const visitor = visitors[i % ROOMS]!;
    const res = await visitor.post(
      `/api/v1/sites/${siteId}/pages/${page}/comments`,
      await visitor.commentBody(siteId, page, text),
      { "idempotency-key": randomUUID() },
    );
    if (res.status !== 202) throw new Error(`writes: comment answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { submission_id: string }).submission_id;
  };
  const sent = async (ids: string[]) => {
    for (;;) {
      if ((await db.submission.count({ where: { id: { in: ids }, status: { not: "queued" } } })) === ids.length) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  // Warm-up (not measured): every page's room, Space child, virtual user and join exist.
  await sent(await Promise.all(pages.map((_, i) => post(i, "warm-up"))));

  // Queue the batch with the worker stopped, then time the drain from start to the last completion.
  await service.services.worker.stop();
  const ids: string[] = [];
  for (let i = 0; i < COMMENTS; i += 20)
    ids.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => post(i + j, `drain comment ${i + j}`)))));
  const rooms = new Map(
    (await db.room.findMany({ where: { siteId, pageSlug: { in: pages }, state: "active" } })).map((r) => [
      r.pageSlug,
      r.roomId,
    ]),
  );
  const raw = (await db.submission.findMany({ where: { id: { in: ids } } })).map((row) =>
    rawSendOf(service.services.names, rooms, row),
  );
  // Each phase starts once the service has projected the previous one's events, so no phase
  // pays for another's projection.
  let expected = ROOMS;
  const projected = async (added: number) => {
    expected += added;
    while ((await db.comment.count({ where: { siteId, pageSlug: { in: pages } } })) < expected)
      await new Promise((r) => setTimeout(r, 100));
  };
  const before = await rawSends(ctx, raw, concurrency);
  await projected(COMMENTS);
  const started = Date.now();
  service.services.worker.start();
  await sent(ids);
  const done = await db.submission.findMany({
    where: { id: { in: ids } },
    select: { status: true, completedAt: true },
  });
  const failed = done.filter((r) => r.status !== "sent").length;
  const drainSeconds = (Math.max(...done.map((r) => r.completedAt!.getTime())) - started) / 1000;
  await projected(COMMENTS - failed);
  const after = await rawSends(ctx, raw, concurrency);

  await projected(COMMENTS);

  // End to end: CLIENTS visitors post the batch while the worker runs, timed from the first POST
  // until every comment is listed (the pages' list totals), next to raw sends at that concurrency.
  const listed = async () => {
    let total = 0;
    for (const page of pages) {
      const res = await fetch(`${ctx.serviceUrl}/api/v1/sites/${siteId}/pages/${page}/comments`, {
        method: "QUERY",
        headers: { "content-type": "application/json" },
        body: '{"per_page":1}',
      });
      total += ((await res.json()) as { meta: { total: number } }).meta.total;
    }
    return total;
  };
  const e2eStarted = performance.now();
  let nextPost = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = nextPost++; i < COMMENTS; i = nextPost++) await post(i, `end-to-end comment ${i}`);
    }),
  );
  const acceptedSeconds = (performance.now() - e2eStarted) / 1000;
  while ((await listed()) < expected + COMMENTS) await new Promise((r) => setTimeout(r, 50));
  const e2eRate = COMMENTS / ((performance.now() - e2eStarted) / 1000);
  await projected(COMMENTS);
  const e2eReference = await rawSends(ctx, raw.map(resent), CLIENTS);
  await projected(COMMENTS);

  const drainRate = COMMENTS / drainSeconds;
  const reference = (before + after) / 2;
  return [
    {
      figure: `writes end to end: ${COMMENTS} comments over ${ROOMS} pages by ${CLIENTS} clients, first POST → all listed`,
      value: `${format.rate(e2eRate, "comments/s")} (the last 202 after ${acceptedSeconds.toFixed(1)} s)`,
      reference: `raw Synapse sends as the appservice, ${CLIENTS} at a time: ${format.rate(e2eReference, "events/s")}`,
      ratio: format.ratio(e2eRate, e2eReference),
    },
    {
      figure: `queue drain, ${COMMENTS} comments over ${ROOMS} rooms, concurrency ${concurrency}`,
      value: format.rate(drainRate, "events/s") + (failed > 0 ? ` (${failed} failed)` : ""),
      reference: `raw Synapse sends as the appservice: ${format.rate(reference, "events/s")} (before ${before.toFixed(0)}, after ${after.toFixed(0)})`,
      ratio: format.ratio(drainRate, reference),
    },
  ];
}

/**
 * The event the worker sends for a submission (same sender, room and content) as a raw send;
 * its proof block names a submission of its own, so the projection keeps the two apart.
 */
function rawSendOf(
  names: MatrixNames,
  rooms: Map<string, string>,
  row: { pageSlug: string; siteId: string; authorPublicKey: string; payload: string },
): RawSend {
  const { matrix } = JSON.parse(row.payload) as SubmissionPayload;
  const roomId = rooms.get(row.pageSlug);
  if (matrix.action !== "send" || !roomId) throw new Error(`writes: no comment send for ${row.pageSlug}`);
  return resent({
    roomId,
    userId: names.visitorUserId(row.siteId, Buffer.from(row.authorPublicKey, "base64url")),
    content: matrix.content,
  });
}

/** The same send naming a fresh submission of its own. */
function resent(send: RawSend): RawSend {
  const proof = send.content[PROOF_KEY] as Record<string, unknown>;
  return { ...send, content: { ...send.content, [PROOF_KEY]: { ...proof, submission_id: randomUUID() } } };
}

/** Sends every event with `concurrency` requests in flight (plain fetch, keep-alive); returns events/s. */
async function rawSends(ctx: BenchContext, sends: RawSend[], concurrency: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < sends.length; i = next++) {
      const { roomId, userId, content } = sends[i]!;
      const url = `${ctx.homeserver.url}/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${encodeURIComponent(`raw.${randomUUID()}`)}?user_id=${encodeURIComponent(userId)}`;
      const res = await fetch(url, {
        method: "PUT",
        headers: { authorization: `Bearer ${ctx.homeserver.asToken}`, "content-type": "application/json" },
        body: JSON.stringify(content),
      });
      if (!res.ok) throw new Error(`writes: raw send answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return sends.length / (Number(process.hrtime.bigint() - started) / 1e9);
}
