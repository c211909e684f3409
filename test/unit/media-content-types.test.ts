// What the media proxy serves bytes as: canonical types, inline or attachment, filenames.
import { test } from "node:test";
import assert from "node:assert/strict";
import { contentDisposition, SERVED_MEDIA_TYPES, servedType } from "../../src/features/media/content-types.ts";

test("common raster images and audio/video are inline, canonically spelled", () => {
  assert.deepEqual(servedType("image/png"), { contentType: "image/png", inline: true, filename: "image.png" });
  assert.deepEqual(servedType("IMAGE/JPG; charset=binary"), {
    contentType: "image/jpeg",
    inline: true,
    filename: "image.jpg",
  });
  assert.deepEqual(servedType("audio/x-wav"), { contentType: "audio/wav", inline: true, filename: "audio.wav" });
  assert.deepEqual(servedType("audio/mp3"), { contentType: "audio/mpeg", inline: true, filename: "audio.mp3" });
  assert.deepEqual(servedType("video/webm"), { contentType: "video/webm", inline: true, filename: "video.webm" });
});

test("SVG, PDF, octet-stream and uncommon media types are attachments", () => {
  assert.deepEqual(servedType("image/svg+xml"), { contentType: "image/svg+xml", inline: false, filename: "image.svg" });
  assert.deepEqual(servedType("application/pdf"), {
    contentType: "application/pdf",
    inline: false,
    filename: "file.pdf",
  });
  assert.deepEqual(servedType("application/octet-stream"), {
    contentType: "application/octet-stream",
    inline: false,
    filename: "file.bin",
  });
  assert.deepEqual(servedType("image/tiff"), { contentType: "image/tiff", inline: false, filename: "image.tiff" });
  assert.deepEqual(servedType("video/quicktime"), {
    contentType: "video/quicktime",
    inline: false,
    filename: "video.mov",
  });
  assert.equal(contentDisposition(servedType("image/svg+xml")), 'attachment; filename="image.svg"');
  assert.equal(contentDisposition(servedType("image/gif")), 'inline; filename="image.gif"');
});

test("anything off the allow-list is never served with its own type", () => {
  for (const declared of [
    "text/html",
    "application/javascript",
    "application/xhtml+xml",
    "text/xml",
    "image/x-unknown",
    "garbage",
    "",
    null,
  ]) {
    assert.deepEqual(
      servedType(declared),
      { contentType: "application/octet-stream", inline: false, filename: "file.bin" },
      String(declared),
    );
  }
});

test("every served type is listed for the OpenAPI document, with a filename of safe characters", () => {
  for (const type of SERVED_MEDIA_TYPES) {
    assert.equal(servedType(type).contentType, type);
    assert.match(servedType(type).filename, /^(image|audio|video|file)\.[a-z0-9+]+$/);
  }
});
