import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DomainError } from "../../src/core/errors.ts";
import { ALLOWED_MEDIA_TYPES, declaredType, maxBytesFor } from "../../src/features/media/media-types.ts";
import { inspectUpload, isPlainText, looksLikeMarkup, sniff } from "../../src/features/media/sniff.ts";
import { gif, html, isoMedia, jpeg, pdf, png, svg, wav, webp } from "../support/media-fixtures.ts";

const refusal = (code: string, status: number) => (err: unknown) =>
  err instanceof DomainError && err.code === code && err.status === status;

describe("declared types", () => {
  test("canonical types and aliases map to their kind; case and parameters do not matter", () => {
    assert.deepEqual(declaredType("image/png"), { mime: "image/png", kind: "image" });
    assert.deepEqual(declaredType("IMAGE/JPG"), { mime: "image/jpeg", kind: "image" });
    assert.deepEqual(declaredType("audio/webm;codecs=opus"), { mime: "audio/webm", kind: "audio" });
    assert.deepEqual(declaredType("audio/x-m4a"), { mime: "audio/mp4", kind: "audio" });
    assert.deepEqual(declaredType("video/matroska"), { mime: "video/x-matroska", kind: "video" });
    assert.deepEqual(declaredType("text/plain; charset=utf-8"), { mime: "text/plain", kind: "file" });
  });

  test("everything outside the allow-list is 400 validation-error", () => {
    for (const mime of [
      "text/html",
      "image/svg+xml",
      "application/xml",
      "application/javascript",
      "application/octet-stream",
      "image/bmp",
      "",
      "nonsense",
    ]) {
      assert.throws(() => declaredType(mime), refusal("validation-error", 400), mime);
    }
  });

  test("each kind has its own cap", () => {
    const caps = { maxImageBytes: 1, maxVideoBytes: 2, maxAudioBytes: 3, maxFileBytes: 4 };
    assert.deepEqual(
      (["image", "video", "audio", "file"] as const).map((kind) => maxBytesFor(kind, caps)),
      [1, 2, 3, 4],
    );
    assert.deepEqual(new Set(Object.values(ALLOWED_MEDIA_TYPES)), new Set(["image", "video", "audio", "file"]));
  });
});

describe("sniffing", () => {
  test("magic numbers name the type", async () => {
    const cases: Array<[Buffer, string]> = [
      [png(2, 2), "image/png"],
      [jpeg(2, 2), "image/jpeg"],
      [gif(2, 2), "image/gif"],
      [webp(2, 2), "image/webp"],
      [wav(), "audio/wav"],
      [isoMedia("isom"), "video/mp4"],
      [isoMedia("M4A "), "audio/x-m4a"],
      [isoMedia("qt  "), "video/quicktime"],
      [pdf(), "application/pdf"],
      [Buffer.from("just words\n"), "text/plain"],
      [html(), "text/html"],
    ];
    for (const [bytes, mime] of cases) assert.equal(await sniff(bytes), mime);
    assert.equal(await sniff(Buffer.from([0, 1, 2, 3, 0xff, 0xfe])), null);
  });

  test("markup and scripts are recognized after a BOM and whitespace; text is UTF-8 without control characters", () => {
    for (const text of [
      "<!DOCTYPE html>",
      "\ufeff  <html>",
      "<svg xmlns='x'/>",
      "<?xml version='1.0'?>",
      "</p>",
      "#!/bin/sh\n",
    ])
      assert.ok(looksLikeMarkup(Buffer.from(text)), text);
    for (const text of ["a < b", "hello", "<3 you"]) assert.ok(!looksLikeMarkup(Buffer.from(text)), text);
    assert.ok(isPlainText(Buffer.from("tab\there\r\nand ünïcode")));
    assert.ok(!isPlainText(Buffer.from([0x61, 0x00, 0x62])));
    assert.ok(!isPlainText(Buffer.from([0xc3, 0x28])), "invalid UTF-8");
  });
});

describe("inspecting an upload", () => {
  test("reads image dimensions", async () => {
    assert.deepEqual(await inspectUpload(declaredType("image/png"), png(40, 30)), { width: 40, height: 30 });
    assert.deepEqual(await inspectUpload(declaredType("image/jpeg"), jpeg(640, 480)), { width: 640, height: 480 });
    assert.deepEqual(await inspectUpload(declaredType("image/webp"), webp(7, 9)), { width: 7, height: 9 });
    assert.deepEqual(await inspectUpload(declaredType("audio/wav"), wav()), { width: null, height: null });
  });

  test("a container may be declared as any type it can hold", async () => {
    await inspectUpload(declaredType("audio/mp4"), isoMedia("isom"));
    await inspectUpload(declaredType("video/mp4"), isoMedia("isom"));
    await inspectUpload(declaredType("audio/mp4"), isoMedia("M4A "));
    await assert.rejects(
      inspectUpload(declaredType("video/mp4"), isoMedia("qt  ")),
      refusal("media-type-mismatch", 400),
    );
  });

  test("bytes that are not the declared type are 400 media-type-mismatch", async () => {
    const mismatches: Array<[string, Buffer]> = [
      ["image/jpeg", png(2, 2)],
      ["image/png", jpeg(2, 2)],
      ["image/png", html()],
      ["image/gif", svg()],
      ["text/plain", html()],
      ["text/plain", svg()],
      ["application/pdf", Buffer.from("not a pdf")],
      ["audio/mpeg", wav()],
    ];
    for (const [mime, bytes] of mismatches)
      await assert.rejects(inspectUpload(declaredType(mime), bytes), refusal("media-type-mismatch", 400), mime);
  });
});
