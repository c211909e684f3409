// The size-bounded memo map: the earliest-stored entry makes room; replacing a key drops nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setBounded } from "../../src/core/bounded-map.ts";

test("a full map drops its earliest-stored entry for a new key, and nothing for a known one", () => {
  const map = new Map<string, number>();
  for (const [i, key] of ["a", "b", "c"].entries()) setBounded(map, key, i, 3);
  setBounded(map, "b", 9, 3);
  assert.deepEqual(
    [...map],
    [
      ["a", 0],
      ["b", 9],
      ["c", 2],
    ],
  );
  setBounded(map, "d", 3, 3);
  assert.deepEqual([...map.keys()], ["b", "c", "d"]);
});
