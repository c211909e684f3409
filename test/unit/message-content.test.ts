import { test, describe } from "node:test";
import { variantOf } from "../support/content.ts";
import assert from "node:assert/strict";
import { reactionKey } from "../../src/projection/annotations.ts";
import { oneEvent } from "../support/room-events.ts";
import {
  eventRelation,
  isCommentEvent,
  malformation,
  messageContent,
  proofOf,
  relationsOf,
  type RoomEvent,
} from "../../src/projection/message-content.ts";

const event = (content: Record<string, unknown>, type = "m.room.message", extra: Partial<RoomEvent> = {}): RoomEvent =>
  oneEvent(type, content, extra);

const proof = { public_key: "pk", signature: "sig", challenge: "ch", content: "Hello", submission_id: "sub-1" };

describe("messageContent", () => {
  test("m.text with HTML formatting", () => {
    assert.deepEqual(
      messageContent(
        event({ msgtype: "m.text", body: "**hi**", format: "org.matrix.custom.html", formatted_body: "<b>hi</b>" }),
      ),
      { type: "text", body: "**hi**", format: "org.matrix.custom.html", formatted_body: "<b>hi</b>" },
    );
  });

  test("plain m.text has null format fields (contract read model)", () => {
    assert.deepEqual(messageContent(event({ msgtype: "m.text", body: "hi", "service.proof": proof })), {
      type: "text",
      body: "hi",
      format: null,
      formatted_body: null,
    });
  });

  test("m.notice is text", () => {
    assert.deepEqual(messageContent(event({ msgtype: "m.notice", body: "bot says" })), {
      type: "text",
      body: "bot says",
      format: null,
      formatted_body: null,
    });
  });

  test("missing or non-string body becomes empty text", () => {
    assert.deepEqual(messageContent(event({ msgtype: "m.text", body: 5 })), {
      type: "text",
      body: "",
      format: null,
      formatted_body: null,
    });
  });

  test("m.image with media fields", () => {
    assert.deepEqual(
      messageContent(
        event({
          msgtype: "m.image",
          body: "A cat",
          filename: "cat.png",
          url: "mxc://localhost/cat",
          info: { mimetype: "image/png", size: 1234, w: 640, h: 480, thumbnail_url: "mxc://localhost/thumb" },
        }),
      ),
      {
        type: "media",
        kind: "image",
        url: "mxc://localhost/cat",
        filename: "cat.png",
        mimetype: "image/png",
        size: 1234,
        width: 640,
        height: 480,
        thumbnail_url: "mxc://localhost/thumb",
        alt_text: "A cat",
        voice: false,
      },
    );
  });

  test("m.image without filename uses body as filename and has no alt text", () => {
    const c = variantOf(
      messageContent(event({ msgtype: "m.image", body: "cat.png", url: "mxc://localhost/cat" })),
      "media",
    );
    assert.equal(c.filename, "cat.png");
    assert.equal(c.alt_text, null);
    assert.equal(c.mimetype, null);
    assert.equal(c.size, null);
  });

  test("voice messages are flagged", () => {
    const c = variantOf(
      messageContent(event({ msgtype: "m.audio", body: "voice", url: "mxc://x/y", "org.matrix.msc3245.voice": {} })),
      "media",
    );
    assert.equal(c.kind, "audio");
    assert.equal(c.voice, true);
  });

  test("stickers are media of kind sticker", () => {
    const c = messageContent(event({ body: "wave", url: "mxc://x/s", info: { w: 64, h: 64 } }, "m.sticker"));
    assert.equal(c.type, "media");
    assert.equal(c.kind, "sticker");
    assert.equal(c.width, 64);
  });

  test("m.location", () => {
    assert.deepEqual(
      messageContent(
        event({
          msgtype: "m.location",
          body: "Paris",
          geo_uri: "geo:48.8566,2.3522",
          info: { thumbnail_url: "mxc://x/map" },
        }),
      ),
      { type: "location", geo_uri: "geo:48.8566,2.3522", description: "Paris", thumbnail_url: "mxc://x/map" },
    );
  });

  test("m.location prefers the MSC3488 location block over geo_uri and body", () => {
    const block = { uri: "geo:51.5,-0.12;u=20", description: "London" };
    for (const key of ["m.location", "org.matrix.msc3488.location"]) {
      assert.deepEqual(
        messageContent(event({ msgtype: "m.location", body: "Location: geo:0,0", geo_uri: "geo:0,0", [key]: block })),
        {
          type: "location",
          geo_uri: "geo:51.5,-0.12;u=20",
          description: "London",
          thumbnail_url: null,
        },
      );
    }
    const uriOnly = variantOf(
      messageContent(
        event({ msgtype: "m.location", body: "fallback", geo_uri: "geo:0,0", "m.location": { uri: "geo:1,2" } }),
      ),
      "location",
    );
    assert.deepEqual([uriOnly.geo_uri, uriOnly.description], ["geo:1,2", "fallback"]);
  });

  const pollBody = {
    type: "poll",
    question: "Tea or coffee?",
    options: [
      { id: "0", text: "Tea" },
      { id: "1", text: "Coffee" },
    ],
    responses: [
      { option_index: 0, count: 0 },
      { option_index: 1, count: 0 },
    ],
  };

  test("a poll as the service sends it (m.room.message, MSC3381 msgtype and block)", () => {
    const content = {
      msgtype: "org.matrix.msc3381.poll.start",
      body: "Tea or coffee?\n1. Tea\n2. Coffee",
      "org.matrix.msc3381.poll.start": {
        question: { "org.matrix.msc1767.text": "Tea or coffee?", body: "Tea or coffee?", msgtype: "m.text" },
        kind: "org.matrix.msc3381.poll.disclosed",
        max_selections: 1,
        answers: [
          { id: "0", "org.matrix.msc1767.text": "Tea" },
          { id: "1", "org.matrix.msc1767.text": "Coffee" },
        ],
      },
      "service.proof": proof,
    };
    assert.deepEqual(messageContent(event(content)), pollBody);
    assert.equal(isCommentEvent(event(content)), true);
  });

  test("native poll start events: unstable and stable (m.poll) shapes", () => {
    const unstable = {
      "org.matrix.msc3381.poll.start": {
        question: { "org.matrix.msc1767.text": "Tea or coffee?" },
        answers: [
          { id: "0", "org.matrix.msc1767.text": "Tea" },
          { id: "1", "org.matrix.msc1767.text": "Coffee" },
        ],
      },
    };
    assert.deepEqual(messageContent(event(unstable, "org.matrix.msc3381.poll.start")), pollBody);
    const stable = {
      "m.poll": {
        question: { "m.text": [{ mimetype: "text/html", body: "<b>Tea or coffee?</b>" }, { body: "Tea or coffee?" }] },
        max_selections: 1,
        answers: [
          { "m.id": "0", "m.text": [{ body: "Tea" }] },
          { "m.id": "1", "m.text": [{ body: "Coffee" }] },
        ],
      },
    };
    assert.deepEqual(messageContent(event(stable, "m.poll.start")), pollBody);
    assert.equal(isCommentEvent(event(stable, "m.poll.start")), true);
  });

  test("a poll without a question or answers is unknown content", () => {
    const content = {
      msgtype: "org.matrix.msc3381.poll.start",
      body: "broken",
      "org.matrix.msc3381.poll.start": { answers: [] },
    };
    assert.equal(messageContent(event(content)).type, "unknown");
  });

  test("m.room.encrypted", () => {
    assert.deepEqual(
      messageContent(
        event({ algorithm: "m.megolm.v1.aes-sha2", sender_key: "curve", ciphertext: "xyz" }, "m.room.encrypted"),
      ),
      { type: "encrypted", algorithm: "m.megolm.v1.aes-sha2", sender_key: "curve" },
    );
  });

  test("unknown msgtype keeps raw content without the proof block", () => {
    assert.deepEqual(
      messageContent(event({ msgtype: "org.example.custom", body: "fallback", extra: 1, "service.proof": proof })),
      {
        type: "unknown",
        fallback: "fallback",
        raw: { msgtype: "org.example.custom", body: "fallback", extra: 1 },
      },
    );
  });
});

describe("relationsOf", () => {
  test("edits (m.replace)", () => {
    assert.deepEqual(relationsOf({ "m.relates_to": { rel_type: "m.replace", event_id: "$orig:localhost" } }), {
      replyTo: null,
      threadRoot: null,
      replaces: "$orig:localhost",
    });
  });
  test("no relation", () => {
    assert.deepEqual(relationsOf({ body: "x" }), { replyTo: null, threadRoot: null, replaces: null });
  });
  test("thread without is_falling_back treats m.in_reply_to as a real reply", () => {
    assert.deepEqual(
      relationsOf({
        "m.relates_to": { rel_type: "m.thread", event_id: "$root:l", "m.in_reply_to": { event_id: "$p:l" } },
      }),
      { replyTo: "$p:l", threadRoot: "$root:l", replaces: null },
    );
  });
  test("thread without any m.in_reply_to", () => {
    assert.deepEqual(relationsOf({ "m.relates_to": { rel_type: "m.thread", event_id: "$root:l" } }), {
      replyTo: null,
      threadRoot: "$root:l",
      replaces: null,
    });
  });
  test("non-string ids are ignored", () => {
    assert.deepEqual(relationsOf({ "m.relates_to": { "m.in_reply_to": { event_id: 5 } } }), {
      replyTo: null,
      threadRoot: null,
      replaces: null,
    });
  });
});

describe("eventRelation (how the event store indexes an event)", () => {
  test("edits, reactions, references and threads", () => {
    for (const relType of ["m.replace", "m.annotation", "m.reference", "m.thread"]) {
      assert.deepEqual(
        eventRelation({ type: "m.room.message", content: { "m.relates_to": { rel_type: relType, event_id: "$t" } } }),
        { relType, relatesTo: "$t" },
      );
    }
  });
  test("redactions: `redacts` in content (room v11+) or at the top level (older rooms)", () => {
    assert.deepEqual(eventRelation({ type: "m.room.redaction", content: { redacts: "$a" } }), {
      relType: "m.redaction",
      relatesTo: "$a",
    });
    assert.deepEqual(eventRelation({ type: "m.room.redaction", content: {}, redacts: "$b" }), {
      relType: "m.redaction",
      relatesTo: "$b",
    });
    assert.equal(eventRelation({ type: "m.room.redaction", content: {} }), null);
  });
  test("plain replies, unknown relation types and malformed content relate to nothing", () => {
    assert.equal(
      eventRelation({ type: "m.room.message", content: { "m.relates_to": { "m.in_reply_to": { event_id: "$p" } } } }),
      null,
    );
    assert.equal(
      eventRelation({
        type: "m.room.message",
        content: { "m.relates_to": { rel_type: "org.example", event_id: "$p" } },
      }),
      null,
    );
    assert.equal(
      eventRelation({ type: "m.room.message", content: { "m.relates_to": { rel_type: "m.replace", event_id: 5 } } }),
      null,
    );
    assert.equal(eventRelation({ type: "m.room.message", content: null as never }), null);
  });
  test("reactionKey reads an m.annotation's key", () => {
    assert.equal(
      reactionKey(event({ "m.relates_to": { rel_type: "m.annotation", event_id: "$t", key: "👍" } }, "m.reaction")),
      "👍",
    );
    assert.equal(
      reactionKey(event({ "m.relates_to": { rel_type: "m.annotation", event_id: "$t" } }, "m.reaction")),
      null,
    );
    assert.equal(reactionKey(event({ "m.relates_to": { rel_type: "m.annotation", event_id: "$t", key: "👍" } })), null);
  });
});

describe("malformation", () => {
  test("sound events have none", () => {
    assert.equal(malformation(event({ msgtype: "m.text", body: "x" })), null);
    assert.equal(malformation(event({ membership: "join" }, "m.room.member", { state_key: "@a:l" })), null);
  });
  test("names what makes an event unprojectable", () => {
    assert.equal(malformation(event(null as never)), "content is not an object");
    assert.equal(
      malformation(event({}, "m.room.message", { origin_server_ts: "soon" as never })),
      "origin_server_ts is not a timestamp",
    );
    assert.equal(malformation(event({}, "m.room.message", { sender: 5 as never })), "sender is not a string");
    assert.equal(malformation(event({}, 7 as never)), "type is not a string");
    assert.equal(malformation(event({}, "m.room.member", { state_key: 1 as never })), "state_key is not a string");
  });
});

describe("proofOf", () => {
  test("accepts a well-formed block", () => {
    assert.deepEqual(proofOf({ body: "Hello", "service.proof": proof }), proof);
  });
  test("rejects a missing block", () => {
    assert.equal(proofOf({ body: "Hello" }), null);
  });
  test("rejects non-object blocks", () => {
    assert.equal(proofOf({ "service.proof": "x" }), null);
    assert.equal(proofOf({ "service.proof": null }), null);
  });
  for (const field of ["public_key", "signature", "challenge", "content", "submission_id"] as const) {
    test(`rejects a block without string ${field}`, () => {
      assert.equal(proofOf({ "service.proof": { ...proof, [field]: undefined } }), null);
      assert.equal(proofOf({ "service.proof": { ...proof, [field]: 1 } }), null);
    });
  }
});

describe("isCommentEvent", () => {
  test("messages, stickers and encrypted events are comments", () => {
    assert.equal(isCommentEvent(event({ msgtype: "m.text", body: "x" })), true);
    assert.equal(isCommentEvent(event({}, "m.sticker")), true);
    assert.equal(isCommentEvent(event({}, "m.room.encrypted")), true);
  });
  test("edits are not comments", () => {
    assert.equal(
      isCommentEvent(
        event({
          msgtype: "m.text",
          body: "* x",
          "m.new_content": { msgtype: "m.text", body: "x" },
          "m.relates_to": { rel_type: "m.replace", event_id: "$o" },
        }),
      ),
      false,
    );
  });
  test("state events and other types are not", () => {
    assert.equal(isCommentEvent(event({}, "m.room.message", { state_key: "" })), false);
    assert.equal(isCommentEvent(event({}, "m.reaction")), false);
    assert.equal(isCommentEvent(event({ membership: "join" }, "m.room.member", { state_key: "@a:l" })), false);
  });
});
