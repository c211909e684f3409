import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parsePoll, tallyPoll, voteSelections } from "../../src/projection/polls.ts";
import { roomEvents } from "../support/room-events.ts";

const room = roomEvents("!r:l");
const start = room.poll("@alice:l", "Best?", ["A", "B", "C"]);
const poll = parsePoll(start)!;
const counts = (votes: Parameters<typeof tallyPoll>[1]) => tallyPoll(poll, votes).map((r) => r.count);

describe("poll tally", () => {
  test("the service's poll parses with answer ids 0.. and max_selections", () => {
    assert.deepEqual(poll, {
      question: "Best?",
      options: [
        { id: "0", text: "A" },
        { id: "1", text: "B" },
        { id: "2", text: "C" },
      ],
      maxSelections: 1,
    });
  });

  test("every option is listed, unvoted ones with 0", () => {
    assert.deepEqual(tallyPoll(poll, []), [
      { option_index: 0, count: 0 },
      { option_index: 1, count: 0 },
      { option_index: 2, count: 0 },
    ]);
  });

  test("each sender counts once, with their newest vote", () => {
    const bobFirst = room.vote("@bob:l", start.event_id, "0");
    const carol = room.vote("@carol:l", start.event_id, "2");
    const bobLater = room.vote("@bob:l", start.event_id, "1");
    assert.deepEqual(counts([bobLater, carol, bobFirst]), [0, 1, 1]);
    assert.deepEqual(counts([bobFirst, carol, bobLater]), [0, 1, 1], "independent of delivery order");
  });

  test("a newer vote without a valid answer does not replace a valid one", () => {
    const valid = room.vote("@bob:l", start.event_id, "2");
    const invalid = room.vote("@bob:l", start.event_id, "9");
    assert.deepEqual(counts([valid, invalid]), [0, 0, 1]);
  });

  test("equal timestamps are ordered by event id", () => {
    const a = { ...room.vote("@bob:l", start.event_id, "0"), event_id: "$a", origin_server_ts: 5 };
    const b = { ...room.vote("@bob:l", start.event_id, "1"), event_id: "$b", origin_server_ts: 5 };
    assert.deepEqual(counts([b, a]), [0, 1, 0]);
  });

  test("selections in the stable and the unstable shape; other event types select nothing", () => {
    const base = room.vote("@bob:l", start.event_id, "0");
    assert.deepEqual(voteSelections({ ...base, content: { "m.selections": ["1"] } }), ["1"]);
    assert.deepEqual(
      voteSelections({
        ...base,
        type: "org.matrix.msc3381.poll.response",
        content: { "org.matrix.msc3381.poll.response": { answers: ["2", 3] } },
      }),
      ["2"],
    );
    assert.deepEqual(voteSelections({ ...base, type: "m.room.message" }), []);
  });

  test("max_selections caps the answers a vote counts", () => {
    const multi = parsePoll({
      ...start,
      type: "m.poll.start",
      content: {
        "m.poll": {
          question: { "m.text": [{ body: "Q" }] },
          max_selections: 2,
          answers: ["x", "y", "z"].map((id) => ({ "m.id": id, "m.text": [{ body: id.toUpperCase() }] })),
        },
      },
    })!;
    assert.equal(multi.maxSelections, 2);
    const vote = { ...room.vote("@bob:l", start.event_id, "x"), content: { "m.selections": ["z", "x", "y", "x"] } };
    assert.deepEqual(
      tallyPoll(multi, [vote]).map((r) => r.count),
      [1, 0, 1],
    );
  });
});
