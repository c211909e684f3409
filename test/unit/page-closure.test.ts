import { test } from "node:test";
import assert from "node:assert/strict";
import {
  closedLevels,
  isClosed,
  reopenedLevels,
  roomPins,
  roomPowerLevels,
} from "../../src/features/moderation/page-closure.ts";

const created = { users: { "@bot:x": 150 }, events: { "m.room.tombstone": 150, "m.room.power_levels": 100 } };

test("a room as the service creates it is open; closing raises events_default and keeps the higher levels", () => {
  assert.equal(isClosed(created), false);
  const closed = closedLevels(created);
  assert.equal(isClosed(closed), true);
  assert.equal(closed.events_default, 50);
  assert.deepEqual(closed.events, created.events);
  assert.deepEqual(closed.users, created.users);
  const reopened = reopenedLevels(closed);
  assert.equal(isClosed(reopened), false);
  assert.equal(reopened.events_default, 0);
});

test("a type sendable at the default level is dropped on closing; one set high by hand reads as closed", () => {
  const open = { ...created, events: { ...created.events, "m.reaction": 0, "m.room.message": 0 } };
  const closed = closedLevels(open);
  assert.deepEqual(Object.keys(closed.events as object).sort(), ["m.room.power_levels", "m.room.tombstone"]);
  assert.equal(isClosed({ events: { "m.room.message": 50 } }), true, "closed in Element by the message level");
  assert.equal(isClosed({ events_default: 10, users_default: 10 }), false, "users_default reaches it");
  assert.equal(isClosed(reopenedLevels({ events: { "m.room.message": 50 }, users_default: 0 })), false);
});

test("a page room's pins and levels from its projected state: pins in order, only ids; none or {} when absent or malformed", () => {
  const levels = { users_default: 0, events_default: 50 };
  assert.deepEqual(roomPowerLevels({ powerLevels: JSON.stringify(levels), pinnedEvents: null }), levels);
  const pins = JSON.stringify({ pinned: ["$b", 7, "$a", null] });
  assert.deepEqual(roomPins({ powerLevels: null, pinnedEvents: pins }), ["$b", "$a"]);
  for (const json of [null, "[]", '"x"', "null", JSON.stringify({ pinned: "$a" }), "{}"]) {
    assert.deepEqual(roomPins({ powerLevels: null, pinnedEvents: json }), [], String(json));
  }
  for (const json of [null, "[]", '"x"', "null"]) {
    assert.deepEqual(roomPowerLevels({ powerLevels: json, pinnedEvents: null }), {}, String(json));
  }
});
