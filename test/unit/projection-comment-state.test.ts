import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { deriveCommentState, type CommentEvents } from "../../src/projection/comment-state.ts";
import { selectEdit } from "../../src/projection/edits.ts";
import { reactionSummaries } from "../../src/projection/annotations.ts";
import { redactionTakesEffect } from "../../src/projection/redactions.ts";
import type { RoomEvent } from "../../src/projection/room-event.ts";
import { roomEvents } from "../support/room-events.ts";

const room = roomEvents("!r:l");
const alice = "@alice:l";
const bob = "@bob:l";
const everyone = () => true;

function derive(original: RoomEvent, events: RoomEvent[], takesEffect: CommentEvents["takesEffect"] = everyone) {
  const isRedaction = (e: RoomEvent) => e.type === "m.room.redaction";
  return deriveCommentState({
    original,
    related: events.filter((e) => !isRedaction(e)),
    redactions: events.filter(isRedaction),
    takesEffect,
  });
}

describe("edit selection", () => {
  const original = room.text(alice, "v1");
  test("the newest edit by the original sender wins", () => {
    const e1 = room.edit(alice, original.event_id, "v2");
    const e2 = room.edit(alice, original.event_id, "v3");
    assert.equal(selectEdit(original, [e2, e1])?.event_id, e2.event_id);
  });
  test("edits by others, of another type, of another event, or without m.new_content do not count", () => {
    const byBob = room.edit(bob, original.event_id, "hijack");
    const otherType = { ...room.edit(alice, original.event_id, "x"), type: "m.sticker" };
    const otherTarget = room.edit(alice, "$other", "x");
    const noNewContent = room.raw(alice, "m.room.message", {
      msgtype: "m.text",
      body: "* x",
      "m.relates_to": { rel_type: "m.replace", event_id: original.event_id },
    });
    assert.equal(selectEdit(original, [byBob, otherType, otherTarget, noNewContent]), null);
  });
});

describe("comment state", () => {
  test("an edit gives status edited, its content and its time; relations stay the original's", () => {
    const root = room.text(alice, "root");
    const reply = room.text(alice, "reply", { replyTo: root.event_id, threadRoot: root.event_id });
    const edit = room.edit(alice, reply.event_id, "reply, edited");
    const state = derive(reply, [edit]);
    assert.equal(state.status, "edited");
    assert.deepEqual(state.content, { type: "text", body: "reply, edited", format: null, formatted_body: null });
    assert.equal(state.editedAt, edit.origin_server_ts);
    assert.deepEqual([state.replyTo, state.threadRoot], [root.event_id, root.event_id]);
  });

  test("a redacted comment is a tombstone: no content, relations, reactions; later edits do nothing", () => {
    const root = room.text(alice, "root");
    const original = room.text(alice, "bye", { replyTo: root.event_id });
    const reaction = room.reaction(bob, original.event_id, "👍");
    const redaction = room.redaction(alice, original.event_id, { submissionId: "del-1" });
    const edit = room.edit(alice, original.event_id, "too late");
    const state = derive(original, [reaction, redaction, edit]);
    assert.deepEqual(state, {
      status: "redacted",
      content: { type: "redacted" },
      editedAt: null,
      replyTo: null,
      threadRoot: null,
      reactions: [],
      redaction,
    });
  });

  test("an event delivered already redacted is a tombstone", () => {
    const original = {
      ...room.text(alice, ""),
      content: {},
      unsigned: { redacted_because: room.redaction(alice, "$x") },
    };
    assert.equal(derive(original, []).status, "redacted");
  });

  test("a redaction that does not take effect changes nothing", () => {
    const original = room.text(alice, "stays");
    const redaction = room.redaction(bob, original.event_id);
    assert.equal(derive(original, [redaction], () => false).status, "published");
  });

  test("redacted reactions, votes and edits drop out", () => {
    const original = room.text(alice, "v1");
    const edit = room.edit(alice, original.event_id, "v2");
    const r1 = room.reaction(bob, original.event_id, "👍");
    const r2 = room.reaction(alice, original.event_id, "👍");
    const state = derive(original, [
      edit,
      r1,
      r2,
      room.redaction(bob, r1.event_id),
      room.redaction(alice, edit.event_id),
    ]);
    assert.equal(state.status, "published");
    assert.equal(state.content.body, "v1");
    assert.deepEqual(
      state.reactions.map((r) => r.eventId),
      [r2.event_id],
    );

    const poll = room.poll(alice, "Q", ["A", "B"]);
    const vote = room.vote(bob, poll.event_id, "1");
    assert.deepEqual(derive(poll, [vote]).content.responses, [
      { option_index: 0, count: 0 },
      { option_index: 1, count: 1 },
    ]);
    assert.deepEqual(derive(poll, [vote, room.redaction(bob, vote.event_id)]).content.responses, [
      { option_index: 0, count: 0 },
      { option_index: 1, count: 0 },
    ]);
  });

  test("the state does not depend on the order the events arrived in", () => {
    const original = room.text(alice, "v1");
    const events = [
      room.edit(alice, original.event_id, "v2"),
      room.edit(bob, original.event_id, "nope"),
      room.reaction(bob, original.event_id, "🎉"),
      room.reaction(alice, original.event_id, "👍"),
      room.edit(alice, original.event_id, "v3"),
    ];
    const redaction = room.redaction(alice, events[3]!.event_id);
    const forward = derive(original, [...events, redaction]);
    const backward = derive(original, [redaction, ...events].reverse());
    assert.deepEqual(backward, forward);
    assert.equal(forward.content.body, "v3");
    assert.deepEqual(
      forward.reactions.map((r) => r.key),
      ["🎉"],
    );
  });
});

describe("redaction power", () => {
  const target = room.text(alice, "x");
  const by = (sender: string) => room.redaction(sender, target.event_id);
  const levels = { users: { "@mod:l": 50, "@half:l": 49 }, users_default: 0, redact: 50 };
  test("the target's sender and the AS bot may always redact", () => {
    assert.equal(redactionTakesEffect(by(alice), target, levels, "@bot:l"), true);
    assert.equal(redactionTakesEffect(by("@bot:l"), target, levels, "@bot:l"), true);
  });
  test("others need the redact level (default 50)", () => {
    assert.equal(redactionTakesEffect(by("@mod:l"), target, levels, "@bot:l"), true);
    assert.equal(redactionTakesEffect(by("@half:l"), target, levels, "@bot:l"), false);
    assert.equal(redactionTakesEffect(by(bob), target, levels, "@bot:l"), false);
    assert.equal(redactionTakesEffect(by(bob), target, { users_default: 50 }, "@bot:l"), true);
    assert.equal(
      redactionTakesEffect(by(bob), target, { users_default: "10", redact: "5" }, "@bot:l"),
      true,
      "old rooms' string levels",
    );
  });
  test("without known power levels the homeserver's acceptance is trusted; another room's redaction never counts", () => {
    assert.equal(redactionTakesEffect(by(bob), target, null, "@bot:l"), true);
    assert.equal(redactionTakesEffect({ ...by(alice), room_id: "!other:l" }, target, null, "@bot:l"), false);
  });
});

describe("reaction summaries", () => {
  const rows = [
    { key: "🎉", sender: bob, originServerTs: 20n },
    { key: "👍", sender: alice, originServerTs: 10n },
    { key: "👍", sender: bob, originServerTs: 30n },
    { key: "👍", sender: bob, originServerTs: 31n },
  ];
  test("distinct senders per key, keys in order of their first reaction", () => {
    assert.deepEqual(reactionSummaries(rows, null), [
      { key: "👍", count: 2, mine: false },
      { key: "🎉", count: 1, mine: false },
    ]);
  });
  test("mine marks the viewer's keys", () => {
    assert.deepEqual(
      reactionSummaries(rows, bob).map((r) => r.mine),
      [true, true],
    );
    assert.deepEqual(
      reactionSummaries(rows, alice).map((r) => r.mine),
      [true, false],
    );
  });
});
