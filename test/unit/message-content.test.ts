import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { isCommentEvent, messageContent, proofOf, relationsOf, type RoomEvent } from "../../src/projection/message-content.ts";

const event = (content: Record<string, unknown>, type = "m.room.message", extra: Partial<RoomEvent> = {}): RoomEvent => ({
  event_id: "$e:localhost",
  room_id: "!r:localhost",
  sender: "@alice:localhost",
  type,
  origin_server_ts: 1_763_726_400_000,
  content,
  ...extra,
});

const proof = { public_key: "pk", signature: "sig", challenge: "ch", content: "Hello", submission_id: "sub-1" };

describe("messageContent", () => {
  test("m.text with HTML formatting", () => {
    assert.deepEqual(
      messageContent(event({ msgtype: "m.text", body: "**hi**", format: "org.matrix.custom.html", formatted_body: "<b>hi</b>" })),
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
    assert.deepEqual(messageContent(event({ msgtype: "m.text", body: 5 })), { type: "text", body: "", format: null, formatted_body: null });
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
    const c = messageContent(event({ msgtype: "m.image", body: "cat.png", url: "mxc://localhost/cat" }));
    assert.equal(c.filename, "cat.png");
    assert.equal(c.alt_text, null);
    assert.equal(c.mimetype, null);
    assert.equal(c.size, null);
  });

  test("voice messages are flagged", () => {
    const c = messageContent(event({ msgtype: "m.audio", body: "voice", url: "mxc://x/y", "org.matrix.msc3245.voice": {} }));
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
      messageContent(event({ msgtype: "m.location", body: "Paris", geo_uri: "geo:48.8566,2.3522", info: { thumbnail_url: "mxc://x/map" } })),
      { type: "location", geo_uri: "geo:48.8566,2.3522", description: "Paris", thumbnail_url: "mxc://x/map" },
    );
  });

  test("m.room.encrypted", () => {
    assert.deepEqual(
      messageContent(event({ algorithm: "m.megolm.v1.aes-sha2", sender_key: "curve", ciphertext: "xyz" }, "m.room.encrypted")),
      { type: "encrypted", algorithm: "m.megolm.v1.aes-sha2", sender_key: "curve" },
    );
  });

  test("unknown msgtype keeps raw content without the proof block", () => {
    assert.deepEqual(messageContent(event({ msgtype: "org.example.custom", body: "fallback", extra: 1, "service.proof": proof })), {
      type: "unknown",
      fallback: "fallback",
      raw: { msgtype: "org.example.custom", body: "fallback", extra: 1 },
    });
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
      relationsOf({ "m.relates_to": { rel_type: "m.thread", event_id: "$root:l", "m.in_reply_to": { event_id: "$p:l" } } }),
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
    assert.deepEqual(relationsOf({ "m.relates_to": { "m.in_reply_to": { event_id: 5 } } }), { replyTo: null, threadRoot: null, replaces: null });
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
  test("state events and other types are not", () => {
    assert.equal(isCommentEvent(event({}, "m.room.message", { state_key: "" })), false);
    assert.equal(isCommentEvent(event({}, "m.reaction")), false);
    assert.equal(isCommentEvent(event({ membership: "join" }, "m.room.member", { state_key: "@a:l" })), false);
  });
});
