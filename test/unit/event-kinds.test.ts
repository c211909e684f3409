// The table of event kinds (src/projection/event-kinds.ts): which kind an event is projected as.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { COMMENT_REL_TYPES } from "../../src/projection/relations.ts";
import { EPHEMERAL_KINDS, ephemeralKind, ROOM_EVENT_KINDS, roomEventKind } from "../../src/projection/event-kinds.ts";
import type { RoomEvent } from "../../src/projection/room-event.ts";
import { oneEvent } from "../support/room-events.ts";

const event = oneEvent;
const kindOf = (e: RoomEvent) => roomEventKind(e)?.kind ?? null;
const relatesTo = (rel_type: string, more: Record<string, unknown> = {}) => ({
  "m.relates_to": { rel_type, event_id: "$target:localhost", ...more },
});

describe("room event kinds", () => {
  test("each kind is listed once", () => {
    const kinds = ROOM_EVENT_KINDS.map((k) => k.kind);
    assert.equal(new Set(kinds).size, kinds.length);
  });

  test("state kinds need a state key", () => {
    for (const type of [
      "m.room.name",
      "m.room.topic",
      "m.room.avatar",
      "m.room.image_pack",
      "m.room.power_levels",
      "m.room.member",
    ]) {
      assert.equal(kindOf(event(type, {}, { state_key: "" })), type);
      assert.equal(kindOf(event(type)), null);
    }
    assert.equal(kindOf(event("m.room.create", {}, { state_key: "" })), null);
    assert.equal(kindOf(event("m.room.message", { msgtype: "m.text", body: "x" }, { state_key: "" })), null);
  });

  test("comments are their own kind, whatever they relate to (but edits)", () => {
    for (const type of [
      "m.room.message",
      "m.sticker",
      "m.room.encrypted",
      "m.poll.start",
      "org.matrix.msc3381.poll.start",
    ]) {
      assert.equal(kindOf(event(type, { body: "x" })), type);
      assert.equal(kindOf(event(type, relatesTo("m.reference"))), type);
    }
    assert.equal(
      kindOf(event("m.room.message", relatesTo("m.replace", { "m.new_content": { msgtype: "m.text", body: "y" } }))),
      "m.replace",
    );
  });

  test("relations are kinds by rel_type, whatever the event type", () => {
    assert.equal(kindOf(event("m.reaction", relatesTo("m.annotation", { key: "👍" }))), "m.annotation");
    assert.equal(kindOf(event("m.poll.response", relatesTo("m.reference"))), "m.reference");
    assert.equal(kindOf(event("org.matrix.msc3381.poll.end", relatesTo("m.reference"))), "m.reference");
    assert.equal(kindOf(event("m.room.redaction", { redacts: "$target:localhost" })), "m.redaction");
    assert.equal(kindOf(event("m.room.redaction", {}, { redacts: "$target:localhost" })), "m.redaction");
    assert.equal(kindOf(event("m.reaction", relatesTo("m.thread"))), null);
    assert.equal(kindOf(event("m.call.invite")), null);
  });

  test("the relations a comment is derived from are all kinds", () => {
    for (const relType of COMMENT_REL_TYPES)
      assert.ok(
        ROOM_EVENT_KINDS.some((k) => k.kind === relType),
        relType,
      );
  });
});

describe("ephemeral kinds", () => {
  test("typing, receipts and presence; nothing else", () => {
    assert.deepEqual(
      EPHEMERAL_KINDS.map((k) => k.type),
      ["m.typing", "m.receipt", "m.presence"],
    );
    assert.equal(ephemeralKind({ type: "constructor" }), null);
    assert.equal(ephemeralKind({ type: "m.receipt" })?.type, "m.receipt");
  });
});
