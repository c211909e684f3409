import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { GenerationMap } from "../../src/security/generation-map.ts";

describe("GenerationMap", () => {
  test("an entry lives at least a lifetime after its last use, and goes after two idle ones", () => {
    const m = new GenerationMap<number>(100, 1000);
    m.set("a", 1, 0);
    assert.equal(m.get("a", 99), 1);
    assert.equal(m.get("a", 150), 1, "in the previous generation, and moved forward");
    assert.equal(m.get("a", 260), 1, "used at 150, so kept until at least 250");
    assert.equal(m.get("a", 500), undefined, "idle since 260");
    assert.equal(m.size, 0);
  });

  test("an unused entry is dropped at the second generation change after it was written", () => {
    const m = new GenerationMap<number>(100, 1000);
    m.set("a", 1, 0);
    m.set("b", 2, 120); // a → previous
    assert.equal(m.size, 2);
    m.set("c", 3, 230); // previous (a) dropped, b → previous
    assert.equal(m.get("a", 230), undefined);
    assert.equal(m.get("b", 230), 2);
  });

  test("past the capacity a generation starts early: at most twice the capacity is held", () => {
    const m = new GenerationMap<number>(60_000, 3);
    for (let i = 0; i < 7; i++) m.set(`k${i}`, i, 0);
    assert.ok(m.size <= 6, String(m.size));
    assert.equal(m.get("k0", 0), undefined, "the oldest generation went first");
    assert.equal(m.get("k6", 0), 6);
  });

  test("setting a key already in the current generation does not start a new one", () => {
    const m = new GenerationMap<number>(60_000, 2);
    m.set("a", 1, 0);
    m.set("b", 1, 0);
    m.set("b", 2, 0);
    assert.equal(m.get("a", 0), 1);
    assert.equal(m.get("b", 0), 2);
  });
});
