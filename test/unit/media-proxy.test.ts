// The media proxy against a stand-in homeserver (a local HTTP server): what it asks the
// homeserver, and how it cuts off bodies past the cap or stalled.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";
import { MediaProxy, type ProxyQuery } from "../../src/features/media/proxy.ts";
import { MediaUrls, type MediaPreset } from "../../src/features/media/proxy-urls.ts";
import { DomainError } from "../../src/core/errors.ts";

const urls = new MediaUrls(Buffer.alloc(32, 9), { enabled: true, serverName: "hs.example", publicBaseUrl: null });
const seen: IncomingMessage[] = [];
let answer: (req: IncomingMessage, res: ServerResponse) => void = () => {};
let server: Server;
let proxy: MediaProxy;

/** Opens the proxy URL reads would hand out for `mxc://hs.example/<id>`. */
const open = (id: string, preset: MediaPreset = "original") => {
  const url = new URL(urls.sign(`mxc://hs.example/${id}`, preset, "http://c.example")!);
  return proxy.open("hs.example", id, Object.fromEntries(url.searchParams) as unknown as ProxyQuery);
};

const refusal = async (promise: Promise<unknown>, status: number, code: string) => {
  await assert.rejects(promise, (err) => err instanceof DomainError && err.status === status && err.code === code);
};

describe("the media proxy's homeserver requests", () => {
  before(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      answer(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    proxy = new MediaProxy(urls, {
      homeserverUrl: `http://127.0.0.1:${port}`,
      asToken: "as-secret",
      maxBytes: 100,
      timeoutMs: 300,
    });
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test("downloads and thumbnails go to the authenticated media API with the token in a header", async () => {
    answer = (_req, res) => res.writeHead(200, { "content-type": "image/png", "content-length": "3" }).end("abc");
    const media = await open("Orig_1");
    assert.equal(await text(media.body), "abc");
    assert.equal(media.headers["Content-Length"], "3");
    const thumb = await open("Thumb-2", "avatar");
    await text(thumb.body);
    const [download, thumbnail] = seen.slice(-2);
    assert.equal(download!.url, "/_matrix/client/v1/media/download/hs.example/Orig_1");
    assert.equal(
      thumbnail!.url,
      "/_matrix/client/v1/media/thumbnail/hs.example/Thumb-2?width=96&height=96&method=crop&animated=false",
    );
    for (const req of [download!, thumbnail!]) {
      assert.equal(req.headers.authorization, "Bearer as-secret");
      assert.ok(!req.url!.includes("as-secret"));
    }
  });

  test("a declared size over the cap is refused before any byte", async () => {
    answer = (_req, res) =>
      res.writeHead(200, { "content-type": "image/png", "content-length": "101" }).end("x".repeat(101));
    await refusal(open("big"), 404, "media-too-large");
  });

  test("an undeclared body growing past the cap fails the stream", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.write("x".repeat(60));
      setTimeout(() => res.end("y".repeat(60)), 20);
    };
    const media = await open("chunked");
    assert.equal(media.headers["Content-Length"], undefined);
    await assert.rejects(text(media.body), (err) => err instanceof DomainError && err.code === "media-too-large");
  });

  test("a homeserver that stalls mid-body fails the stream", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.write("x");
    };
    const media = await open("stall");
    await assert.rejects(text(media.body), (err) => err instanceof DomainError && err.code === "media-unavailable");
  });

  test("missing media, missing thumbnails, failures, redirects and silence", async () => {
    answer = (_req, res) => res.writeHead(404, { "content-type": "application/json" }).end('{"errcode":"M_NOT_FOUND"}');
    await refusal(open("gone"), 404, "media-not-found");
    answer = (_req, res) => res.writeHead(400, { "content-type": "application/json" }).end("{}");
    await refusal(open("svg", "message"), 404, "media-not-found");
    await refusal(open("svg"), 503, "media-unavailable");
    answer = (_req, res) => res.writeHead(502).end();
    await refusal(open("down"), 503, "media-unavailable");
    answer = (_req, res) => res.writeHead(302, { location: "http://elsewhere.example/x" }).end();
    await refusal(open("moved"), 503, "media-unavailable");
    answer = () => {};
    await refusal(open("silent"), 503, "media-unavailable");
  });
});
