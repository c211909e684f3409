// The media comment contents the service sends, read back by the projection: the fields the
// read model shows survive the round trip.
import { test } from "node:test";
import { variantOf } from "../support/content.ts";
import assert from "node:assert/strict";
import {
  mediaMessageContent,
  stickerContent,
  type MediaAttachment,
} from "../../src/features/comments/operations/post-comment.ts";
import { messageContent, proofOf } from "../../src/projection/message-content.ts";

const proof = {
  public_key: "pk",
  signature: "sig",
  challenge: "ch",
  content: "mxc://localhost/abc",
  submission_id: "sub-1",
};
const roundTrip = (type: string, content: Record<string, unknown>) =>
  messageContent({
    event_id: "$e:localhost",
    room_id: "!r:localhost",
    sender: "@v:localhost",
    type,
    origin_server_ts: 1,
    content,
  });

const image: MediaAttachment = {
  msgtype: "m.image",
  url: "mxc://localhost/abc",
  mimetype: "image/png",
  size: 1234,
  filename: "cat.png",
  width: 40,
  height: 30,
  voice: false,
};

test("an image with a caption: filename, type, size, dimensions and the caption as alt text", () => {
  const content = mediaMessageContent(image, "my cat", null, null, proof);
  assert.deepEqual(content.info, { mimetype: "image/png", size: 1234, w: 40, h: 30 });
  assert.deepEqual(roundTrip("m.room.message", content), {
    type: "media",
    kind: "image",
    url: "mxc://localhost/abc",
    filename: "cat.png",
    mimetype: "image/png",
    size: 1234,
    width: 40,
    height: 30,
    thumbnail_url: null,
    alt_text: "my cat",
    voice: false,
  });
  assert.equal(proofOf(content)?.content, "mxc://localhost/abc");
});

test("a voice message carries the MSC3245 fields; no dimensions without them; relations kept", () => {
  const voice: MediaAttachment = {
    ...image,
    msgtype: "m.audio",
    mimetype: "audio/ogg",
    filename: null,
    width: null,
    height: null,
    voice: true,
  };
  const content = mediaMessageContent(voice, "audio", "$parent:localhost", null, proof);
  assert.deepEqual(content["org.matrix.msc3245.voice"], {});
  assert.deepEqual(content["org.matrix.msc1767.audio"], {});
  assert.deepEqual(content.info, { mimetype: "audio/ogg", size: 1234 });
  assert.deepEqual(content["m.relates_to"], { "m.in_reply_to": { event_id: "$parent:localhost" } });
  const read = variantOf(roundTrip("m.room.message", content), "media");
  assert.deepEqual([read.kind, read.voice, read.width, read.filename], ["audio", true, null, "audio"]);
});

test("a sticker is an m.sticker with the pack's body and info", () => {
  const content = stickerContent(
    "mxc://localhost/st",
    "A wave",
    { w: 128, h: 128, mimetype: "image/png" },
    null,
    "$root:localhost",
    proof,
  );
  const read = variantOf(roundTrip("m.sticker", content), "media");
  assert.deepEqual(
    [read.type, read.kind, read.url, read.width, read.height, read.mimetype],
    ["media", "sticker", "mxc://localhost/st", 128, 128, "image/png"],
  );
  assert.equal((content["m.relates_to"] as { rel_type: string }).rel_type, "m.thread");
});
