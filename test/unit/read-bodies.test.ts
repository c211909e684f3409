import { test } from "node:test";
import assert from "node:assert/strict";
import { ReadBodies } from "../../src/rest/read-bodies.ts";
import { MAX_REMEMBERED_READ_BODIES, MAX_REMEMBERED_READ_BODY_BYTES } from "../../src/config/limits.ts";

test("a read body is remembered by its exact bytes and its route", () => {
  const bodies = new ReadBodies();
  const raw = Buffer.from('{"pages":["a","b"]}');
  const key = bodies.key("pageCounts", raw)!;
  assert.equal(bodies.get(key), undefined);
  const body = { pages: ["a", "b"] };
  bodies.remember(key, body);
  assert.equal(bodies.get(bodies.key("pageCounts", Buffer.from('{"pages":["a","b"]}'))!), body);
  assert.equal(bodies.get(bodies.key("listComments", raw)!), undefined, "another route's body");
  assert.equal(bodies.get(bodies.key("pageCounts", Buffer.from('{"pages":["a", "b"]}'))!), undefined, "other bytes");
  // Bytes that are not UTF-8 stay distinct keys (latin1 maps every byte).
  const a = bodies.key("pageCounts", Buffer.from([0x7b, 0xc3, 0x28, 0x7d]))!;
  const b = bodies.key("pageCounts", Buffer.from([0x7b, 0xc3, 0x29, 0x7d]))!;
  assert.notEqual(a, b);
});

test("large bodies are not remembered; the oldest entry makes room", () => {
  const bodies = new ReadBodies();
  assert.equal(bodies.key("pageCounts", Buffer.alloc(MAX_REMEMBERED_READ_BODY_BYTES + 1, 0x20)), null);
  const keys = Array.from(
    { length: MAX_REMEMBERED_READ_BODIES + 1 },
    (_, i) => bodies.key("r", Buffer.from(String(i)))!,
  );
  for (const key of keys) bodies.remember(key, { key });
  assert.equal(bodies.get(keys[0]!), undefined);
  assert.deepEqual(bodies.get(keys[1]!), { key: keys[1] });
  assert.deepEqual(bodies.get(keys.at(-1)!), { key: keys.at(-1) });
});
