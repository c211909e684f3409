// Visitor media uploads and media comments through real HTTP, the real test Synapse and the
// projection: upload → media comment → listed; replays; type checks; size caps (without the
// service buffering what it refuses); only the visitor's own uploads may be posted.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { signatureArrays } from "../../src/contract/signatures.ts";
import {
  PROVIDERS,
  serviceFor,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { getEvent } from "../support/matrix.ts";
import { TEST_OPERATOR_TOKEN } from "../support/environment.ts";
import { html, jpeg, pdf, png, svg, wav } from "../support/media-fixtures.ts";
import { expectProblem } from "../support/problems.ts";
import { listComments, whenListed } from "../support/reads.ts";

interface Uploaded {
  url: string;
  filename: string | null;
  mimetype: string;
  size: number;
  voice: boolean;
}

for (const provider of PROVIDERS) {
  describe(`media uploads and media comments on ${provider}`, () => {
    const siteId = uniqueSiteId("media");
    const otherSite = uniqueSiteId("media-other");
    const page = "page";
    const base = `/api/v1/sites/${siteId}/pages/${page}`;
    const running = serviceFor(provider, {
      sites: { [siteId]: { origins: [TEST_ORIGIN] }, [otherSite]: { origins: [TEST_ORIGIN] } },
    });
    let service: TestService;
    let alice: Visitor;
    let bob: Visitor;
    let key = 0;

    const upload = async (
      visitor: Visitor,
      bytes: Buffer,
      mime: string,
      filename: string | null,
      extra: { voice?: boolean; key?: string; site?: string } = {},
    ) => {
      const built = await visitor.uploadRequest(extra.site ?? siteId, page, bytes, mime, filename, extra);
      return visitor.send("POST", built.path, built.body, { "idempotency-key": extra.key ?? `u-${++key}` });
    };
    const uploaded = async (res: Response): Promise<Uploaded> => {
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as Uploaded;
    };
    const mediaComment = async (
      visitor: Visitor,
      media: Record<string, unknown>,
      content: string | null = null,
      site = siteId,
    ) => {
      const proof = await visitor.proof((ch) =>
        signatureArrays.postComment(site, page, media.url as string, null, null, ch),
      );
      return visitor.post(
        `/api/v1/sites/${site}/pages/${page}/comments`,
        { ...(content !== null ? { content } : {}), media, ...proof },
        { "idempotency-key": `m-${++key}` },
      );
    };
    const list = async () => (await listComments(service, siteId, page, { per_page: 100 })).data;
    const listed = (res: Response) => whenListed(res, list, "the media comment");

    before(() => {
      service = running.service;
      alice = new Visitor(service.url, TEST_ORIGIN);
      bob = new Visitor(service.url, TEST_ORIGIN);
    });

    test("upload → media comment → listed with the upload's type, size and dimensions; sent as m.image", async () => {
      const bytes = png(40, 30);
      const result = await uploaded(await upload(alice, bytes, "image/png", "cat.png"));
      assert.match(result.url, /^mxc:\/\/[^/]+\/[A-Za-z0-9_-]+$/);
      assert.deepEqual(
        { ...result, url: "" },
        { url: "", filename: "cat.png", mimetype: "image/png", size: bytes.length, voice: false },
      );
      const record = await service.services.db.mediaUpload.findUniqueOrThrow({ where: { url: result.url } });
      assert.deepEqual(
        [record.siteId, record.authorPublicKey, record.width, record.height],
        [siteId, alice.key, 40, 30],
      );

      const message = await listed(await mediaComment(alice, { ...result }, "my cat"));
      const content = message.content;
      assert.equal(content.type, "media");
      assert.equal(content.kind, "image");
      assert.deepEqual(
        [content.mimetype, content.size, content.width, content.height, content.filename, content.voice],
        ["image/png", bytes.length, 40, 30, "cat.png", false],
      );
      assert.equal(message.author.public_key, alice.key);
      // The media proxy is on by default: the listed URL is a signed proxy URL serving exactly the uploaded bytes.
      assert.match(content.url, /\/api\/v1\/media\//);
      const served = await fetch(new URL(content.url, service.url));
      assert.equal(served.status, 200);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);

      const event = await getEvent(message.room_id, message.event_id);
      assert.equal(event.type, "m.room.message");
      assert.equal(event.content.msgtype, "m.image");
      assert.equal(event.content.url, result.url);
      assert.equal(event.content.body, "my cat");
      assert.deepEqual(event.content.info, { mimetype: "image/png", size: bytes.length, w: 40, h: 30 });
      assert.equal(event.content["service.proof"].content, result.url, "the proof block repeats the signed media.url");
    });

    test("a voice message: audio uploaded with voice=true is sent with the MSC3245 fields and listed as voice", async () => {
      const result = await uploaded(await upload(alice, wav(), "audio/x-wav", null, { voice: true }));
      assert.deepEqual([result.mimetype, result.voice, result.filename], ["audio/wav", true, null]);
      const message = await listed(await mediaComment(alice, { ...result }));
      assert.deepEqual(
        [message.content.kind, message.content.voice, message.content.mimetype],
        ["audio", true, "audio/wav"],
      );
      const event = await getEvent(message.room_id, message.event_id);
      assert.equal(event.content.msgtype, "m.audio");
      assert.deepEqual(event.content["org.matrix.msc3245.voice"], {});
      assert.ok(event.content["org.matrix.msc1767.audio"]);
      assert.equal(event.content.body, "audio", "no text and no filename: the kind is the fallback body");
      await expectProblem(await upload(alice, png(2, 2), "image/png", null, { voice: true }), 400, "validation-error");
    });

    test("a PDF is sent as m.file, its filename the body when there is no text", async () => {
      const bytes = pdf();
      const result = await uploaded(await upload(alice, bytes, "application/pdf", "paper.pdf"));
      const message = await listed(await mediaComment(alice, { ...result }));
      assert.deepEqual(
        [message.content.kind, message.content.filename, message.content.mimetype, message.content.width],
        ["file", "paper.pdf", "application/pdf", null],
      );
      const event = await getEvent(message.room_id, message.event_id);
      assert.deepEqual(
        [event.content.msgtype, event.content.body, event.content.filename],
        ["m.file", "paper.pdf", "paper.pdf"],
      );
      assert.deepEqual(event.content.info, { mimetype: "application/pdf", size: bytes.length });
    });

    test("a replay (same key, fresh proof) answers the first upload's URL without uploading again", async () => {
      const bytes = png(5, 5);
      const first = await uploaded(await upload(alice, bytes, "image/png", "x.png", { key: "replay" }));
      const count = await service.services.db.mediaUpload.count();
      const again = await upload(alice, bytes, "image/png", "x.png", { key: "replay" });
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(await uploaded(again), first);
      assert.equal(await service.services.db.mediaUpload.count(), count, "no second upload recorded");
      // The fingerprint covers mime and filename: the key with another filename is refused.
      await expectProblem(
        await upload(alice, bytes, "image/png", "y.png", { key: "replay" }),
        409,
        "idempotency-key-reused",
      );
    });

    test("the bytes must be what mime declares; types outside the allow-list are refused", async () => {
      await expectProblem(await upload(alice, png(3, 3), "image/jpeg", "a.jpg"), 400, "media-type-mismatch");
      await expectProblem(await upload(alice, jpeg(3, 3), "image/png", "a.png"), 400, "media-type-mismatch");
      await expectProblem(await upload(alice, html(), "image/png", "a.png"), 400, "media-type-mismatch");
      await expectProblem(await upload(alice, svg(), "image/png", "a.png"), 400, "media-type-mismatch");
      await expectProblem(await upload(alice, html(), "text/plain", "a.txt"), 400, "media-type-mismatch");
      await expectProblem(await upload(alice, html(), "text/html", "a.html"), 400, "validation-error");
      await expectProblem(await upload(alice, svg(), "image/svg+xml", "a.svg"), 400, "validation-error");
      await expectProblem(await upload(alice, Buffer.alloc(0), "image/png", "a.png"), 400, "validation-error");
      // Aliases and parameters are their canonical type.
      assert.equal((await uploaded(await upload(alice, jpeg(4, 3), "image/JPG", "b.jpg"))).mimetype, "image/jpeg");
      assert.equal(
        (await uploaded(await upload(alice, Buffer.from("plain words\n"), "text/plain; charset=utf-8", "notes.txt")))
          .mimetype,
        "text/plain",
      );
    });

    test("proof and key refusals: wrong signature, spent challenge, missing or malformed key", async () => {
      const bytes = png(6, 6);
      const built = await alice.uploadRequest(siteId, page, bytes, "image/png", "p.png");
      const forged = built.path.replace(/author_signature=[^&]+/, `author_signature=${alice.sign(["UPLOAD", "else"])}`);
      await expectProblem(
        await alice.send("POST", forged, bytes, { "idempotency-key": `k-${++key}` }),
        403,
        "invalid-signature",
      );
      // Another visitor's upload signature does not verify under this key either.
      const signedByBob = built.path.replace(/author_public_key=[^&]+/, `author_public_key=${bob.key}`);
      await expectProblem(
        await alice.send("POST", signedByBob, bytes, { "idempotency-key": `k-${++key}` }),
        403,
        "invalid-signature",
      );
      await expectProblem(await alice.send("POST", built.path, bytes), 400, "idempotency-key-required");
      await expectProblem(
        await alice.send("POST", built.path, bytes, { "idempotency-key": "has space" }),
        400,
        "invalid-idempotency-key",
      );
      assert.equal((await alice.send("POST", built.path, bytes, { "idempotency-key": `k-${++key}` })).status, 200);
      await expectProblem(
        await alice.send("POST", built.path, bytes, { "idempotency-key": `k-${++key}` }),
        403,
        "invalid-PoW",
      );
      // The signed hash is the body's: other bytes under the same proof do not verify.
      const other = await alice.uploadRequest(siteId, page, bytes, "image/png", "p.png");
      await expectProblem(
        await alice.send("POST", other.path, png(7, 7), { "idempotency-key": `k-${++key}` }),
        403,
        "invalid-signature",
      );
    });

    test("a sticker comment posts an image of the site's packs as m.sticker with the pack's metadata", async () => {
      const image = await uploaded(await upload(alice, png(64, 64), "image/png", "wave.png"));
      const pack = await fetch(`${service.url}/api/v1/operator/sites/${siteId}/packs/waves/stickers`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
        body: JSON.stringify({
          shortcode: "wave",
          url: image.url,
          body: "A wave",
          info: { w: 64, h: 64, mimetype: "image/png", size: 99 },
        }),
      });
      assert.equal(pack.status, 200, await pack.clone().text());
      // Any visitor may post the site's stickers; the client's text is not used.
      const message = await listed(await mediaComment(bob, { kind: "sticker", url: image.url }, "ignored"));
      assert.deepEqual(
        [
          message.content.type,
          message.content.kind,
          message.content.width,
          message.content.height,
          message.content.mimetype,
        ],
        ["media", "sticker", 64, 64, "image/png"],
      );
      const event = await getEvent(message.room_id, message.event_id);
      assert.equal(event.type, "m.sticker");
      assert.equal(event.content.body, "A wave");
      assert.equal(event.content.url, image.url);
      assert.deepEqual(event.content.info, { w: 64, h: 64, mimetype: "image/png", size: 99 });
      // The same image is no sticker of another site.
      await expectProblem(
        await mediaComment(bob, { kind: "sticker", url: image.url }, null, otherSite),
        404,
        "sticker-not-found",
      );
    });

    test("only the visitor's own uploads for this site may be posted; stickers must be the site's", async () => {
      const mine = await uploaded(await upload(alice, png(8, 8), "image/png", "mine.png"));
      await expectProblem(await mediaComment(bob, { ...mine }), 404, "media-not-found");
      await expectProblem(await mediaComment(alice, { url: "mxc://elsewhere.example/abcdef" }), 404, "media-not-found");
      await expectProblem(await mediaComment(alice, { ...mine }, null, otherSite), 404, "media-not-found");
      await expectProblem(await mediaComment(alice, { kind: "sticker", url: mine.url }), 404, "sticker-not-found");
      await expectProblem(await mediaComment(alice, { url: "https://evil.example/x.png" }), 400, "validation-error");
      // The signature covers media.url: a comment signed over other text is refused.
      const proof = await alice.proof((ch) => signatureArrays.postComment(siteId, page, "text", null, null, ch));
      await expectProblem(
        await alice.post(
          `${base}/comments`,
          { content: "text", media: { ...mine }, ...proof },
          { "idempotency-key": `m-${++key}` },
        ),
        403,
        "invalid-signature",
      );
    });
  });
}

describe("upload size caps", () => {
  const siteId = uniqueSiteId("media-cap");
  const CAP = 64 * 1024;
  let service: TestService;
  let alice: Visitor;

  before(async () => {
    service = await startTestService({
      sites: { [siteId]: { origins: [TEST_ORIGIN] } },
      overrides: { "media.max_image_bytes": CAP },
    });
    alice = new Visitor(service.url, TEST_ORIGIN);
  });
  after(() => service?.stop());

  /** Sends `path` by hand: a declared Content-Length, or `chunks` chunks of `chunk` chunked, until the service answers. */
  function rawUpload(
    path: string,
    body: { declaredLength: number } | { chunk: Buffer; chunks: number },
    onChunk: () => void = () => {},
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, service.url);
      const headers: Record<string, string> = {
        "idempotency-key": `cap-${Math.random()}`,
        "content-type": "application/octet-stream",
      };
      if ("declaredLength" in body) headers["content-length"] = String(body.declaredLength);
      const req = request(url, { method: "POST", headers });
      let answered = false;
      req.on("response", (res) => {
        answered = true;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
        res.on("error", reject);
        // The rest of the upload is not wanted any more.
        if ("declaredLength" in body) res.on("end", () => req.destroy());
      });
      req.on("error", (err) => {
        if (!answered) reject(err);
      });
      if ("declaredLength" in body) {
        req.flushHeaders();
        return;
      }
      let sent = 0;
      // One chunk per turn of the event loop, so the refusal is read between two: a client that
      // writes on without a pause can be cut off mid-write (EPIPE) before it reads the answer.
      const pump = () => {
        if (answered || req.destroyed) return;
        if (sent >= body.chunks) {
          req.end();
          return;
        }
        sent++;
        onChunk();
        if (req.write(body.chunk)) setImmediate(pump);
        else req.once("drain", pump);
      };
      pump();
    });
  }

  test("a declared Content-Length over the kind's cap is refused at once with 413", async () => {
    const built = await alice.uploadRequest(siteId, "page", png(1, 1), "image/png", "big.png");
    const res = await rawUpload(built.path, { declaredLength: CAP + 1 });
    assert.equal(res.status, 413);
    assert.equal((JSON.parse(res.body) as { code: string }).code, "payload-too-large");
  });

  test("a chunked 64 MiB upload against a 64 KiB cap is refused without the service buffering it", async () => {
    const built = await alice.uploadRequest(siteId, "page", png(1, 1), "image/png", "huge.png");
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    const total = 256 * chunk.length; // 64 MiB
    global.gc?.();
    const start = process.memoryUsage();
    let peakBuffers = start.arrayBuffers;
    let peakRss = start.rss;
    const sample = () => {
      const now = process.memoryUsage();
      peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
      peakRss = Math.max(peakRss, now.rss);
    };
    const res = await rawUpload(built.path, { chunk, chunks: total / chunk.length }, sample);
    sample();
    assert.equal(res.status, 413);
    assert.equal((JSON.parse(res.body) as { code: string }).code, "payload-too-large");
    const grewBuffers = peakBuffers - start.arrayBuffers;
    const grewRss = peakRss - start.rss;
    assert.ok(grewBuffers < total / 4, `buffers grew by ${grewBuffers} bytes for a ${total}-byte body`);
    assert.ok(grewRss < total / 2, `rss grew by ${grewRss} bytes for a ${total}-byte body`);
    assert.equal(await service.services.db.mediaUpload.count(), 0);
  });

  test("a body within the cap is accepted; the cap is the declared kind's", async () => {
    const within = png(10, 10, CAP - 1024);
    assert.ok(within.length <= CAP);
    const ok = await alice.uploadRequest(siteId, "page", within, "image/png", "fits.png");
    assert.equal((await alice.send("POST", ok.path, ok.body, { "idempotency-key": "fits" })).status, 200);
    const over = png(10, 10, CAP);
    const refused = await alice.uploadRequest(siteId, "page", over, "image/png", "over.png");
    await expectProblem(
      await alice.send("POST", refused.path, refused.body, { "idempotency-key": "over" }),
      413,
      "payload-too-large",
    );
    // Audio has its own (default, larger) cap.
    const audio = wav(CAP * 2);
    const voice = await alice.uploadRequest(siteId, "page", audio, "audio/wav", "long.wav");
    assert.equal((await alice.send("POST", voice.path, voice.body, { "idempotency-key": "audio" })).status, 200);
  });
});
