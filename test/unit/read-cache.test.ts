// The read cache's bookkeeping (src/rest/read-cache.ts): bounds, expiry at the next whole
// minute, what a page or site change drops, and that a read overtaken by a change stores nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LocalSignals } from "../../src/cluster/signals.ts";
import { nextWholeMinute, ReadCache } from "../../src/rest/read-cache.ts";

const page = (pageSlug: string | null, siteId = "s") => ({ siteId, pageSlug });

function cache(limits = { maxEntries: 100, maxBytes: 1_000_000 }) {
  const signals = new LocalSignals();
  const clock = { now: 120_000 };
  const readCache = new ReadCache(limits, signals, () => clock.now);
  const put = (key: string, scope = page("p"), value: string = key) =>
    readCache.set(key, scope, value, readCache.generation(scope));
  return { signals, clock, readCache, put };
}

test("entries expire at the next whole minute", () => {
  assert.equal(nextWholeMinute(120_000), 180_000);
  assert.equal(nextWholeMinute(179_999), 180_000);
  const { clock, readCache, put } = cache();
  clock.now = 150_000;
  put("a");
  clock.now = 179_999;
  assert.equal(readCache.get("a")?.value, "a");
  clock.now = 180_000;
  assert.equal(readCache.get("a"), undefined);
  assert.deepEqual(readCache.size, { entries: 0, bytes: 0 });
});

test("bounded by entries and bytes, least recently used out first", () => {
  const { readCache, put } = cache({ maxEntries: 2, maxBytes: 1_000 });
  put("a");
  put("b");
  readCache.get("a");
  put("c");
  assert.equal(readCache.get("b"), undefined, "b was the least recently used");
  assert.ok(readCache.get("a") && readCache.get("c"));
  const bytes = cache({ maxEntries: 100, maxBytes: 10 });
  bytes.put("x", page("p"), "12345");
  bytes.put("y", page("p"), "12345");
  assert.equal(bytes.readCache.get("x"), undefined);
  assert.equal(bytes.readCache.size.bytes, 7);
  bytes.put("big", page("p"), "z".repeat(20));
  assert.equal(bytes.readCache.get("big"), undefined, "a body larger than the bound is not kept");
});

test("a page change drops that page's entries; a site change drops every entry of the site", () => {
  const { signals, readCache, put } = cache();
  put("p1", page("p"));
  put("q1", page("q"));
  put("site", page(null));
  put("other", page("p", "t"));
  signals.pageChanged(page("p"));
  assert.equal(readCache.get("p1"), undefined);
  assert.ok(readCache.get("q1") && readCache.get("site") && readCache.get("other"));
  signals.pageChanged(page(null));
  assert.equal(readCache.get("q1"), undefined);
  assert.equal(readCache.get("site"), undefined);
  assert.ok(readCache.get("other"), "another site's entries stay");
});

test("a read that started before a change of its scope does not store its result", () => {
  const { signals, readCache } = cache();
  const since = readCache.generation(page("p"));
  signals.pageChanged(page("p"));
  readCache.set("stale", page("p"), "old", since);
  assert.equal(readCache.get("stale"), undefined);
  const siteSince = readCache.generation(page("p"));
  signals.pageChanged(page(null));
  readCache.set("stale", page("p"), "old", siteSince);
  assert.equal(readCache.get("stale"), undefined, "a site change overtakes its pages' reads too");
  const fresh = readCache.generation(page("p"));
  signals.pageChanged(page("q"));
  readCache.set("fresh", page("p"), "new", fresh);
  assert.equal(readCache.get("fresh")?.value, "new", "another page's change does not matter");
});
