// Lanes of a transaction's events: grouped by page in arrival order, run side by side up to a
// width, a lane stopping at its failure while the others finish.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lanesOf, runLanes } from "../../src/projection/apply-lanes.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("lanes group items by key, in order of each key's first item, each in arrival order", () => {
  const items = ["a1", "b1", "a2", "c1", "b2", "a3"];
  assert.deepEqual(
    lanesOf(items, (item) => item[0]!),
    [["a1", "a2", "a3"], ["b1", "b2"], ["c1"]],
  );
  assert.deepEqual(
    lanesOf([], (item: string) => item),
    [],
  );
});

test("lanes run side by side up to the width, each lane's items one after another", async () => {
  const lanes = [["a1", "a2", "a3"], ["b1", "b2"], ["c1"], ["d1", "d2"]];
  let running = 0;
  let most = 0;
  const started: string[] = [];
  const finished: string[] = [];
  await runLanes(lanes, 2, async (item) => {
    started.push(item);
    most = Math.max(most, ++running);
    await tick();
    await tick();
    running--;
    finished.push(item);
  });
  assert.equal(most, 2);
  assert.deepEqual([...finished].sort(), lanes.flat().sort());
  for (const lane of lanes) {
    // An item starts only once the one before it in its lane has finished.
    for (let i = 1; i < lane.length; i++)
      assert.ok(
        finished.indexOf(lane[i - 1]!) < started.indexOf(lane[i]!),
        `${lane[i]} started before ${lane[i - 1]} finished`,
      );
  }
});

test("a failing lane stops there; the others run to their end before the first failure is thrown", async () => {
  const done: string[] = [];
  const failure = new Error("database trouble");
  await assert.rejects(
    runLanes(
      [
        ["a1", "a2", "a3"],
        ["b1", "b2", "b3"],
      ],
      2,
      async (item) => {
        await tick();
        if (item === "a2") throw failure;
        if (item === "b3") await tick();
        done.push(item);
      },
    ),
    (err) => err === failure,
  );
  assert.deepEqual(done.sort(), ["a1", "b1", "b2", "b3"]);
});

test("a width above the number of lanes runs each lane once", async () => {
  const seen: string[] = [];
  await runLanes([["a"], ["b"]], 8, async (item) => void seen.push(item));
  assert.deepEqual(seen.sort(), ["a", "b"]);
});
