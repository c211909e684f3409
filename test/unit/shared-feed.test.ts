import { test } from "node:test";
import assert from "node:assert/strict";
import { SharedFeeds, type Frame } from "../../src/sse/shared-feed.ts";
import type { SseWriter } from "../../src/sse/sse-writer.ts";
import { coalesce } from "../../src/sse/page-stream.ts";
import type { LiveEvent } from "../../src/db/generated/sqlite/client.ts";

/** A subscription the test feeds by hand. */
class Source implements AsyncIterator<Frame> {
  returned = false;
  private readonly queue: Frame[] = [];
  private waiter: ((r: IteratorResult<Frame>) => void) | null = null;

  push(id: number): void {
    const frame = { id, bytes: Buffer.from(`id: ${id}\n\n`) };
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w({ done: false, value: frame });
    } else this.queue.push(frame);
  }

  next(): Promise<IteratorResult<Frame>> {
    const frame = this.queue.shift();
    if (frame) return Promise.resolve({ done: false, value: frame });
    if (this.returned) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => (this.waiter = resolve));
  }

  async return(): Promise<IteratorResult<Frame>> {
    this.returned = true;
    this.waiter?.({ done: true, value: undefined });
    return { done: true, value: undefined };
  }
}

class Writer {
  readonly chunks: Buffer[] = [];
  writeRaw(bytes: Buffer): void {
    this.chunks.push(bytes);
  }
  get text(): string {
    return Buffer.concat(this.chunks).toString();
  }
}

const asWriter = (w: Writer) => w as unknown as SseWriter;
const settle = () => new Promise((r) => setImmediate(r));

test("clients of one key share one subscription, get the same bytes, and it closes with the last of them", async () => {
  const feeds = new SharedFeeds(() => {});
  const sources: Source[] = [];
  const open = async () => {
    const source = new Source();
    source.push(10); // the snapshot: fixes the position
    sources.push(source);
    return source;
  };
  const a = await feeds.join("page", open, 0, 1000, () => {});
  const b = await feeds.join("page", open, 0, 1000, () => {});
  assert.equal(sources.length, 1);
  assert.equal(a.position, 10);
  const [wa, wb] = [new Writer(), new Writer()];
  a.client.live(asWriter(wa));
  b.client.live(asWriter(wb));
  sources[0]!.push(11);
  sources[0]!.push(12);
  await settle();
  await settle();
  assert.equal(wa.text, "id: 11\n\nid: 12\n\n");
  assert.equal(wa.chunks[0], wb.chunks[0], "serialized once, the same buffer for both");
  a.client.close();
  assert.equal(sources[0]!.returned, false);
  b.client.close();
  assert.equal(sources[0]!.returned, true);
  assert.equal(feeds.size, 0);
  await feeds.join("page", open, 0, 1000, () => {});
  assert.equal(sources.length, 2, "a new client opens a new subscription");
});

test("a joining client gets the frames after its position once live, skipping what it already has", async () => {
  const feeds = new SharedFeeds(() => {});
  const source = new Source();
  source.push(5);
  const { client, position } = await feeds.join(
    "page",
    async () => source,
    7,
    1000,
    () => {},
  );
  assert.equal(position, 5);
  source.push(6);
  source.push(7);
  source.push(8);
  await settle();
  await settle();
  const writer = new Writer();
  client.live(asWriter(writer));
  source.push(9);
  await settle();
  await settle();
  assert.equal(writer.text, "id: 8\n\nid: 9\n\n");
});

test("frames waiting for a client past the bound disconnect it; the others go on", async () => {
  const feeds = new SharedFeeds(() => {});
  const source = new Source();
  source.push(1);
  let dropped = 0;
  const slow = await feeds.join(
    "page",
    async () => source,
    0,
    20,
    () => dropped++,
  );
  const healthy = await feeds.join(
    "page",
    async () => source,
    0,
    20,
    () => {},
  );
  const writer = new Writer();
  healthy.client.live(asWriter(writer));
  for (let id = 2; id <= 6; id++) {
    source.push(id);
    await settle();
    await settle();
  }
  assert.equal(dropped, 1);
  assert.equal(source.returned, false);
  assert.match(writer.text, /id: 6/);
  slow.client.live(asWriter(new Writer()));
});

test("a subscription that fails to open fails every client waiting for it", async () => {
  const feeds = new SharedFeeds(() => {});
  const open = async (): Promise<Source> => {
    throw new Error("site-not-found");
  };
  await assert.rejects(
    Promise.all([feeds.join("page", open, 0, 10, () => {}), feeds.join("page", open, 0, 10, () => {})]),
    /site-not-found/,
  );
  assert.equal(feeds.size, 0);
});

test("ephemeral states superseded within one read are skipped, in order, everything else kept", () => {
  let id = 0;
  const row = (type: string, payload: Record<string, unknown> | null): LiveEvent => ({
    id: ++id,
    siteId: "s",
    pageSlug: "p",
    type,
    eventId: null,
    payload: payload && JSON.stringify(payload),
    createdAt: new Date(0),
  });
  const ada = { type: "matrix", mxid: "@ada:x" };
  const bob = { type: "matrix", mxid: "@bob:x" };
  const rows = [
    row("ephemeral", { kind: "typing", users: [ada] }),
    row("message_created", null),
    row("ephemeral", { kind: "presence", user: ada, presence: "online" }),
    row("ephemeral", { kind: "presence", user: bob, presence: "online" }),
    row("ephemeral", { kind: "typing", users: [] }),
    row("ephemeral", { kind: "presence", user: ada, presence: "offline" }),
    row("ephemeral", { kind: "receipt", user: ada, receipt_type: "m.read", event_id: "$1" }),
  ];
  assert.deepEqual(
    coalesce(rows).map((r) => r.id),
    [2, 4, 5, 6, 7],
  );
});
