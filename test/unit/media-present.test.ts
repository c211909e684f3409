// Media references in message content as reads show them.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { presentContent } from "../../src/features/media/present.ts";
import { MediaUrls } from "../../src/features/media/proxy-urls.ts";

const urls = (enabled: boolean) =>
  new MediaUrls(
    Buffer.alloc(32, 1),
    { enabled, serverName: "hs.example", publicBaseUrl: "https://c.example" },
    () => 0,
  );
const media = (extra: Record<string, unknown>) => ({
  type: "media",
  kind: "image",
  url: "mxc://hs.example/img",
  filename: "a.png",
  mimetype: "image/png",
  thumbnail_url: null,
  ...extra,
});
const params = (url: unknown) => {
  const u = new URL(url as string);
  return {
    path: u.pathname,
    width: u.searchParams.get("width"),
    height: u.searchParams.get("height"),
    method: u.searchParams.get("method"),
  };
};

describe("presented content", () => {
  test("media: the original and a 320x240 scale thumbnail of the media's own thumbnail", () => {
    const shown = presentContent(media({ thumbnail_url: "mxc://hs.example/thumb" }), urls(true), "https://c.example");
    assert.deepEqual(params(shown.url), {
      path: "/api/v1/media/hs.example/img",
      width: null,
      height: null,
      method: null,
    });
    assert.deepEqual(params(shown.thumbnail_url), {
      path: "/api/v1/media/hs.example/thumb",
      width: "320",
      height: "240",
      method: "scale",
    });
    assert.equal(shown.filename, "a.png", "other fields untouched");
  });

  test("an image without a thumbnail gets one of itself; a non-thumbnailable one none", () => {
    const own = presentContent(media({}), urls(true), "https://c.example");
    assert.deepEqual(params(own.thumbnail_url), {
      path: "/api/v1/media/hs.example/img",
      width: "320",
      height: "240",
      method: "scale",
    });
    assert.equal(presentContent(media({ mimetype: "image/svg+xml" }), urls(true), null).thumbnail_url, null);
    assert.equal(
      presentContent(media({ kind: "file", mimetype: "application/pdf" }), urls(true), null).thumbnail_url,
      null,
    );
  });

  test("location thumbnails use the message preset", () => {
    const shown = presentContent(
      { type: "location", geo_uri: "geo:1,2", description: null, thumbnail_url: "mxc://hs.example/map" },
      urls(true),
      "https://c.example",
    );
    assert.deepEqual(params(shown.thumbnail_url), {
      path: "/api/v1/media/hs.example/map",
      width: "320",
      height: "240",
      method: "scale",
    });
  });

  test("disabled: raw mxc, no thumbnail invented; other servers raw; non-mxc null", () => {
    assert.deepEqual(presentContent(media({}), urls(false), null), media({}));
    const foreign = presentContent(
      media({ url: "mxc://other.example/x", thumbnail_url: "javascript:alert(1)" }),
      urls(true),
      null,
    );
    assert.equal(foreign.url, "mxc://other.example/x");
    assert.equal(foreign.thumbnail_url, null);
  });

  test("other variants are untouched", () => {
    const text = { type: "text", body: "mxc://hs.example/img", format: null, formatted_body: null };
    assert.equal(presentContent(text, urls(true), null), text);
    const unknown = { type: "unknown", fallback: null, raw: { url: "mxc://hs.example/img" } };
    assert.equal(presentContent(unknown, urls(true), null), unknown);
  });
});
