// One bad entry of an appservice transaction is set aside, never failing the rest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_ENTRY_DEPTH, nestsDeeperThan, transactionEntries } from "../../src/projection/transaction-entries.ts";

const deep = (levels: number) => {
  let value: unknown = "bottom";
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

test("bad entries are rejected by event id or by their place; good ones are kept in order", () => {
  const good = {
    event_id: "$good",
    room_id: "!r:x",
    type: "m.room.message",
    sender: "@u:x",
    origin_server_ts: 1,
    content: { body: "hi" },
  };
  const typing = { type: "m.typing", room_id: "!r:x", content: { user_ids: ["@u:x"] } };
  const { events, ephemeral, rejected } = transactionEntries("t1", {
    events: [null, { ...good, event_id: "$deep", content: deep(5_000) }, good, { room_id: "!r:x" }],
    ephemeral: [
      null,
      { type: "m.typing", room_id: "!r:x", content: { user_ids: "@u:x" } },
      typing,
      { type: "m.receipt", room_id: "!r:x", content: { $e: "read" } },
      { type: "m.presence", sender: 5 },
    ],
  });
  assert.deepEqual(events, [good]);
  assert.deepEqual(ephemeral, [typing]);
  assert.deepEqual(
    rejected.map((r) => r.key),
    ["t1/events/0", "$deep", "t1/events/3", "t1/ephemeral/0", "t1/ephemeral/1", "t1/ephemeral/3", "t1/ephemeral/4"],
  );
  assert.match(rejected[1]!.reason, /nested deeper/);
  assert.equal(rejected[1]!.roomId, "!r:x");
  assert.match(rejected[4]!.reason, /user_ids is not a list/);
});

test("the unstable ephemeral key, and bodies without lists", () => {
  assert.equal(
    transactionEntries("t", { "de.sorunome.msc2409.ephemeral": [{ type: "m.typing" }] }).ephemeral.length,
    1,
  );
  assert.deepEqual(transactionEntries("t", null), { events: [], ephemeral: [], rejected: [] });
  assert.deepEqual(transactionEntries("t", { events: "x" }), { events: [], ephemeral: [], rejected: [] });
});

test("nestsDeeperThan measures any depth without recursion", () => {
  assert.equal(nestsDeeperThan(deep(MAX_ENTRY_DEPTH), MAX_ENTRY_DEPTH), false);
  assert.equal(nestsDeeperThan(deep(MAX_ENTRY_DEPTH + 1), MAX_ENTRY_DEPTH), true);
  let arrays: unknown = [];
  for (let i = 0; i < 1_000_000; i++) arrays = [arrays];
  assert.equal(nestsDeeperThan(arrays, MAX_ENTRY_DEPTH), true);
});
