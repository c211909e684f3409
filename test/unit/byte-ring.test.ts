// The log's byte ring: text encoded into one buffer used round and round, never over bytes not
// yet written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ByteRing } from "../../src/app/byte-ring.ts";

const inRing = (a: Buffer, b: Buffer) => a.buffer === b.buffer;

test("text comes out as its UTF-8 bytes, multi-byte characters included", () => {
  const ring = new ByteRing(1024);
  for (const text of ["plain", "é€👋🏽\n", "\u0000\u007f\uffff", "x".repeat(300)])
    assert.deepEqual(ring.bytes(text), Buffer.from(text));
});

test("room is used again once its bytes are written, and not before", () => {
  const ring = new ByteRing(64);
  const first = ring.bytes("a".repeat(10)); // needs up to 30 bytes of room
  const second = ring.bytes("b".repeat(10));
  assert.ok(inRing(first, second), "both in the ring");
  assert.equal(second.byteOffset - first.byteOffset, 10);
  // 20 bytes unwritten from offset 0: no room for up to 30 more before the end (64).
  const third = ring.bytes("c".repeat(15));
  assert.ok(!inRing(first, third), "a buffer of its own when the ring has no room");
  assert.equal(first.toString(), "a".repeat(10));
  ring.written(10); // the first one
  ring.written(10); // the second one
  // The third, unwritten, is not in the ring: the whole ring is free again.
  const fourth = ring.bytes("d".repeat(10));
  assert.ok(inRing(first, fourth));
  assert.equal(fourth.byteOffset, first.byteOffset);
  const fifth = ring.bytes("e".repeat(10));
  assert.equal(fifth.byteOffset, first.byteOffset + 10, "after the fourth, still unwritten");
  assert.equal(fourth.toString(), "d".repeat(10));
});

test("bytes partly written keep their room until all of them are", () => {
  const ring = new ByteRing(60);
  const first = ring.bytes("a".repeat(20));
  ring.written(19);
  assert.ok(!inRing(first, ring.bytes("b".repeat(20))), "one byte of the first unwritten: no room");
  ring.written(1);
  ring.written(20);
  assert.equal(ring.bytes("c".repeat(20)).byteOffset, first.byteOffset, "all written: from the start again");
});

test("handed out and written in any rhythm, no unwritten bytes ever change", () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return (seed >>> 12) % n;
  };
  const ring = new ByteRing(4096);
  const unwritten: { bytes: Buffer; text: string; left: number }[] = [];
  let reused = 0;
  for (let step = 0; step < 10_000; step++) {
    if (random(2) === 0) {
      const text = `${"é€x\n".repeat(random(200))}${step}`;
      const bytes = ring.bytes(text);
      if (unwritten.some((u) => inRing(u.bytes, bytes))) reused++;
      unwritten.push({ bytes, text, left: bytes.length });
    } else if (unwritten.length > 0) {
      // The destination writes in order, sometimes part of a buffer, sometimes several.
      let n = 1 + random(unwritten.slice(0, 3).reduce((sum, u) => sum + u.left, 0));
      let reported = 0;
      while (n > 0 && unwritten.length > 0) {
        const taken = Math.min(n, unwritten[0]!.left);
        unwritten[0]!.left -= taken;
        n -= taken;
        reported += taken;
        if (unwritten[0]!.left === 0) unwritten.shift();
      }
      ring.written(reported);
    }
    for (const u of unwritten) assert.equal(u.bytes.toString(), u.text, `step ${step}`);
  }
  assert.ok(reused > 500, `the ring was used round and round (${reused} slices beside unwritten ones)`);
});

test("bytes made in place land in the ring's room, or in a buffer of their own when it has none", () => {
  const ring = new ByteRing(64);
  const ascii = (text: string) => (target: Buffer, start: number) => start + target.write(text, start, "latin1");
  const first = ring.encode(40, ascii("made in place"));
  assert.equal(first.toString(), "made in place");
  // Room for 40 asked, 13 used: the next bytes follow them.
  const second = ring.encode(20, ascii("next"));
  assert.ok(inRing(first, second));
  assert.equal(second.byteOffset, first.byteOffset + 13);
  const third = ring.encode(60, ascii("no room for 60"));
  assert.ok(!inRing(first, third), "a buffer of its own");
  assert.equal(third.toString(), "no room for 60");
  ring.written(13 + 4 + 14);
  assert.equal(ring.encode(60, ascii("all written")).byteOffset, first.byteOffset, "from the start again");
});
