import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readPack, withImage, withoutImage } from "../../src/features/stickers/image-pack.ts";

const image = (shortcode: string, url = `mxc://hs/${shortcode}`) => ({ shortcode, url, body: null, info: null });

describe("readPack", () => {
  test("lists sticker images by shortcode with the pack's name and avatar", () => {
    const pack = readPack("cats", {
      pack: { display_name: "Cats", avatar_url: "mxc://hs/avatar", usage: ["sticker"] },
      images: { b: { url: "mxc://hs/b", body: "B", info: { w: 10, h: 10 } }, a: { url: "mxc://hs/a" } },
    });
    assert.deepEqual(pack, {
      packId: "cats",
      displayName: "Cats",
      avatarUrl: "mxc://hs/avatar",
      images: [
        { shortcode: "a", url: "mxc://hs/a", body: null, info: null },
        { shortcode: "b", url: "mxc://hs/b", body: "B", info: { w: 10, h: 10 } },
      ],
    });
  });

  test("skips emoticon-only images, by the image's usage or else the pack's; no usage means every usage", () => {
    const pack = readPack("p", {
      pack: { usage: ["emoticon"] },
      images: { e: { url: "mxc://hs/e" }, s: { url: "mxc://hs/s", usage: ["sticker"] } },
    });
    assert.deepEqual(
      pack.images.map((i) => i.shortcode),
      ["s"],
    );
    assert.deepEqual(
      readPack("p", { images: { x: { url: "mxc://hs/x" } } }).images.map((i) => i.shortcode),
      ["x"],
    );
  });

  test("tolerates what a Matrix client may write: no pack, non-mxc urls, non-object entries", () => {
    const pack = readPack("p", {
      pack: "nope",
      images: { a: { url: "https://evil.example/a.png" }, b: 3, c: { url: "mxc://hs/c", body: 5, info: [1] } },
    });
    assert.deepEqual(pack, {
      packId: "p",
      displayName: null,
      avatarUrl: null,
      images: [{ shortcode: "c", url: "mxc://hs/c", body: null, info: null }],
    });
    assert.equal(readPack("p", { pack: { avatar_url: "javascript:alert(1)" } }).avatarUrl, null);
  });
});

describe("withImage", () => {
  test("a new pack is named after its id and used for stickers", () => {
    assert.deepEqual(withImage(null, "cats", { shortcode: "a", url: "mxc://hs/a", body: "A", info: { w: 1 } }), {
      pack: { display_name: "cats", usage: ["sticker"] },
      images: { a: { url: "mxc://hs/a", body: "A", info: { w: 1 } } },
    });
  });

  test("replacing keeps everything else a client wrote", () => {
    const content = {
      pack: { display_name: "Cats", attribution: "me" },
      images: { a: { url: "mxc://hs/a" }, b: { url: "mxc://hs/b" } },
      extra: 1,
    };
    const next = withImage(content, "cats", image("a", "mxc://hs/a2"));
    assert.deepEqual(next, { ...content, images: { a: { url: "mxc://hs/a2" }, b: { url: "mxc://hs/b" } } });
  });

  test("an image added to an emoticon pack is marked as a sticker, so it is listed", () => {
    const next = withImage({ pack: { usage: ["emoticon"] }, images: {} }, "p", image("s"));
    assert.deepEqual(next.images, { s: { url: "mxc://hs/s", usage: ["sticker"] } });
    assert.deepEqual(
      readPack("p", next).images.map((i) => i.shortcode),
      ["s"],
    );
  });
});

describe("withoutImage", () => {
  test("removes the image and keeps the rest", () => {
    assert.deepEqual(
      withoutImage(
        { pack: { display_name: "P" }, images: { a: { url: "mxc://hs/a" }, b: { url: "mxc://hs/b" } } },
        "a",
      ),
      {
        pack: { display_name: "P" },
        images: { b: { url: "mxc://hs/b" } },
      },
    );
  });

  test("null (nothing to write) when the image or the pack is missing", () => {
    assert.equal(withoutImage({ images: { a: { url: "mxc://hs/a" } } }, "b"), null);
    assert.equal(withoutImage(null, "a"), null);
    assert.equal(withoutImage({ images: { a: 1 } }, "toString"), null);
  });
});
