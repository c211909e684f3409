// Proxy URLs as reads hand them out: presets, foreign and non-mxc references, the base URL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MediaUrls, parseMxc } from "../../src/features/media/proxy-urls.ts";
import { checkMediaSignature, expiryFor } from "../../src/features/media/signing.ts";

const KEY = Buffer.alloc(32, 3);
const NOW = Date.UTC(2026, 10, 22, 8, 0, 30);
const urls = (options: Partial<ConstructorParameters<typeof MediaUrls>[1]> = {}) =>
  new MediaUrls(KEY, { enabled: true, serverName: "hs.example", publicBaseUrl: null, ...options }, () => NOW);

describe("proxy URLs", () => {
  test("mxc URLs are parsed strictly", () => {
    assert.deepEqual(parseMxc("mxc://hs.example/abc"), { server: "hs.example", mediaId: "abc" });
    assert.deepEqual(parseMxc("mxc://hs.example:8448/abc"), { server: "hs.example:8448", mediaId: "abc" });
    for (const bad of [
      "https://hs.example/abc",
      "mxc://hs.example",
      "mxc://hs.example/a/b",
      "mxc:///abc",
      "mxc://hs.example/abc?x=1",
    ])
      assert.equal(parseMxc(bad), null, bad);
  });

  test("each preset signs its thumbnail parameters", () => {
    const expires = expiryFor(NOW);
    const cases = [
      ["original", null],
      ["message", { width: 320, height: 240, method: "scale" }],
      ["avatar", { width: 96, height: 96, method: "crop" }],
    ] as const;
    for (const [preset, thumbnail] of cases) {
      const url = new URL(urls().sign("mxc://hs.example/Media_1", preset, "https://c.example")!);
      assert.equal(`${url.origin}${url.pathname}`, "https://c.example/api/v1/media/hs.example/Media_1");
      const q = url.searchParams;
      assert.equal(q.get("expires"), String(expires));
      assert.equal(q.get("width"), thumbnail ? String(thumbnail.width) : null);
      assert.equal(q.get("height"), thumbnail ? String(thumbnail.height) : null);
      assert.equal(q.get("method"), thumbnail?.method ?? null);
      assert.equal(
        checkMediaSignature(KEY, { server: "hs.example", mediaId: "Media_1", thumbnail }, expires, q.get("sig")!, NOW),
        "valid",
        preset,
      );
    }
  });

  test("API-relative without a base; identical within a minute", () => {
    const url = urls().sign("mxc://hs.example/abc", "original", null)!;
    assert.match(url, /^\/api\/v1\/media\/hs\.example\/abc\?expires=\d+&sig=[A-Za-z0-9_-]+$/);
    assert.equal(urls().sign("mxc://hs.example/abc", "original", null), url);
  });

  test("only the configured homeserver's mxc URLs with proxyable ids are signed", () => {
    assert.equal(urls().sign("mxc://other.example/abc", "original", null), null);
    assert.equal(urls().sign("https://hs.example/abc", "original", null), null);
    assert.equal(urls().sign("mxc://hs.example/a.b", "original", null), null);
    assert.equal(urls().sign(`mxc://hs.example/${"a".repeat(256)}`, "original", null), null);
  });

  test("reads show proxy URLs, raw mxc for what the proxy cannot serve or when it is off, never other URLs", () => {
    assert.match(urls().present("mxc://hs.example/abc", "avatar", null)!, /^\/api\/v1\/media\//);
    assert.equal(urls().present("mxc://other.example/abc", "avatar", null), "mxc://other.example/abc");
    assert.equal(
      urls({ enabled: false }).present("mxc://hs.example/abc", "avatar", "https://c.example"),
      "mxc://hs.example/abc",
    );
    for (const value of ["javascript:alert(1)", "https://evil.example/x.png", null, undefined]) {
      assert.equal(urls().present(value, "message", null), null);
      assert.equal(urls({ enabled: false }).present(value, "message", null), null);
    }
  });
});

describe("the base proxy URLs are absolute against", () => {
  const request = (headers: Record<string, string>, viaTrustedProxy = false) => ({ headers, viaTrustedProxy });

  test("server.public_base_url wins over every header", () => {
    const u = urls({ publicBaseUrl: "https://comments.example/sub" });
    assert.equal(
      u.resolveBase(request({ host: "x.example", "x-forwarded-host": "y.example" }, true)),
      "https://comments.example/sub",
    );
    assert.equal(u.resolveBase(null), "https://comments.example/sub");
  });

  test("the request's Host over http; X-Forwarded-* ignored from an untrusted peer", () => {
    assert.equal(urls().resolveBase(request({ host: "Api.Example:8080" })), "http://api.example:8080");
    assert.equal(
      urls().resolveBase(
        request({ host: "api.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" }),
      ),
      "http://api.example",
    );
    assert.equal(urls().resolveBase(request({ host: "[::1]:80" })), "http://[::1]:80");
  });

  test("X-Forwarded-Host and -Proto from a trusted proxy (first value; malformed ones ignored)", () => {
    assert.equal(
      urls().resolveBase(
        request(
          {
            host: "internal:8080",
            "x-forwarded-host": "comments.example, internal",
            "x-forwarded-proto": "https, http",
          },
          true,
        ),
      ),
      "https://comments.example",
    );
    assert.equal(
      urls().resolveBase(request({ host: "internal:8080", "x-forwarded-proto": "HTTPS" }, true)),
      "https://internal:8080",
    );
    assert.equal(
      urls().resolveBase(
        request({ host: "internal", "x-forwarded-host": "bad host/", "x-forwarded-proto": "gopher" }, true),
      ),
      "http://internal",
    );
  });

  test("no usable host: API-relative", () => {
    assert.equal(urls().resolveBase(null), null);
    assert.equal(urls().resolveBase(request({})), null);
    for (const host of ["", "a b", "evil.example/path", "x@y", "-bad.example", "host:port"])
      assert.equal(urls().resolveBase(request({ host })), null, host);
  });
});
