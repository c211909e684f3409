// The signed media proxy against the real test Synapse: media posted in Matrix (uploaded to the
// homeserver directly, as a Matrix client would) is read back as signed proxy URLs whose bytes,
// thumbnails and headers are checked; forged, expired and foreign URLs are refused; the base URL
// follows public_base_url, Host and trusted proxies; a disabled proxy leaves raw mxc URLs.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  eventually,
  serviceFor,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { matrixRequest, registerMatrixUser } from "../support/matrix.ts";
import { SseClient } from "../support/sse.ts";
import { html, png, svg } from "../support/media-fixtures.ts";
import { TEST_HOMESERVER_URL, TEST_SERVER_NAME } from "../support/environment.ts";
import { MediaUrls } from "../../src/features/media/proxy-urls.ts";
import { sharedSecret } from "../../src/db/settings-store.ts";
import { expectProblem } from "../support/problems.ts";
import { listComments } from "../support/reads.ts";

const enc = encodeURIComponent;
const siteId = uniqueSiteId("media");
const page = "gallery";
const pagePath = `/api/v1/sites/${siteId}/pages/${page}`;
const sites = { [siteId]: { origins: [TEST_ORIGIN] } };

/** Uploads bytes to the homeserver's media repository as `token`'s user; the mxc URL. */
async function upload(token: string, bytes: Buffer, contentType: string): Promise<string> {
  const res = await fetch(`${TEST_HOMESERVER_URL}/_matrix/media/v3/upload?filename=upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": contentType },
    body: new Uint8Array(bytes),
  });
  const body = (await res.json()) as { content_uri: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.content_uri;
}

const pngSize = (bytes: Buffer) => {
  assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG", "a PNG thumbnail");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
};

const list = async (service: TestService, headers: Record<string, string> = {}) =>
  (await listComments(service, siteId, page, {}, headers)).data;

async function room(service: TestService, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${service.url}${pagePath}/room`, { headers });
  assert.equal(res.status, 200);
  return res.json();
}

/** A service's own signer, with its real key but another clock (for expired URLs). */
async function signerAt(service: TestService, nowMs: number): Promise<MediaUrls> {
  const key = await sharedSecret(service.services.db, "media_url_secret");
  return new MediaUrls(key, { enabled: true, serverName: TEST_SERVER_NAME, publicBaseUrl: null }, () => nowMs);
}

/** Fetching `url` is refused with the problem `status` `code`. */
const problem = async (url: string, status: number, code: string) => expectProblem(await fetch(url), status, code, url);

/** Fetches a proxy URL and checks every header a success must carry; the body. */
async function fetchMedia(url: string, contentType: string, disposition: string): Promise<Buffer> {
  const before = Date.now();
  const res = await fetch(url);
  const after = Date.now();
  assert.equal(res.status, 200, `${url}: ${res.status} ${res.status === 200 ? "" : await res.text()}`);
  const h = res.headers;
  assert.equal(h.get("content-type"), contentType);
  assert.equal(h.get("content-disposition"), disposition);
  const { pathname, searchParams } = new URL(url, "http://x");
  assert.ok(!disposition.includes(pathname.split("/").at(-1)!), "never the media id");
  assert.equal(h.get("content-security-policy"), "default-src 'none'; sandbox");
  assert.equal(h.get("x-content-type-options"), "nosniff");
  assert.equal(h.get("cross-origin-resource-policy"), "cross-origin");
  assert.equal(h.get("referrer-policy"), "no-referrer");
  const expires = Number(searchParams.get("expires"));
  assert.equal(h.get("expires"), new Date(expires * 1000).toUTCString());
  const maxAge = Number(/^public, max-age=(\d+), immutable$/.exec(h.get("cache-control") ?? "")?.[1]);
  assert.ok(
    maxAge <= expires - Math.floor(before / 1000) && maxAge >= expires - Math.ceil(after / 1000),
    `max-age ${maxAge} runs until expires ${expires}`,
  );
  return Buffer.from(await res.arrayBuffer());
}

const photo = png(640, 480);
const mediaState = {} as {
  photo: string;
  avatar: string;
  roomAvatar: string;
  svg: string;
  html: string;
  roomId: string;
  dbUrl: string;
  user: { userId: string; token: string };
};

describe("the media proxy", () => {
  const running = serviceFor("sqlite", { sites });
  let service: TestService;
  let message: any;

  before(async () => {
    service = running.service;
    mediaState.dbUrl = service.config.database.url;
    const visitor = new Visitor(service.url, TEST_ORIGIN);
    const res = await visitor.post(`${pagePath}/comments`, await visitor.commentBody(siteId, page, "First"), {
      "idempotency-key": "first",
    });
    assert.equal(res.status, 202, await res.text());
    const roomId = await eventually(
      async () => ((await (await fetch(`${service.url}${pagePath}/room`)).json()) as { room_id?: string }).room_id,
      30_000,
      "the page room",
    );
    const user = await registerMatrixUser(`media${Date.now().toString(36)}`);
    await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, user.token, {});
    Object.assign(mediaState, {
      roomId,
      user,
      photo: await upload(user.token, photo, "image/png"),
      avatar: await upload(user.token, png(200, 150), "image/png"),
      roomAvatar: await upload(user.token, png(300, 300), "image/png"),
      svg: await upload(user.token, svg(), "image/svg+xml"),
      html: await upload(user.token, html(), "text/html"),
    });
    await matrixRequest("PUT", `/_matrix/client/v3/profile/${enc(user.userId)}/avatar_url`, user.token, {
      avatar_url: mediaState.avatar,
    });
    await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.avatar/`, undefined, {
      url: mediaState.roomAvatar,
    });
    await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/send/m.room.message/photo1`, user.token, {
      msgtype: "m.image",
      body: "photo.png",
      url: mediaState.photo,
      info: { mimetype: "image/png", w: 640, h: 480, size: photo.length },
    });
    message = await eventually(
      async () => (await list(service)).find((m) => m.content.type === "media" && m.author.avatar_url),
      30_000,
      "the image with its author's avatar",
    );
  });

  test("a read's media URL is a signed proxy URL, absolute against the Host, serving the uploaded bytes", async () => {
    const url = new URL(message.content.url);
    assert.equal(url.origin, service.url);
    assert.equal(url.pathname, `/api/v1/media/${TEST_SERVER_NAME}/${mediaState.photo.split("/").at(-1)}`);
    assert.deepEqual([...url.searchParams.keys()], ["expires", "sig"]);
    const bytes = await fetchMedia(message.content.url, "image/png", 'inline; filename="image.png"');
    assert.ok(bytes.equals(photo), "the uploaded bytes");
  });

  test("thumbnail presets: the image's own 320x240 scale thumbnail, 96x96 crop avatars (author and room)", async () => {
    const thumb = new URL(message.content.thumbnail_url);
    assert.deepEqual(Object.fromEntries([...thumb.searchParams].filter(([k]) => k !== "expires" && k !== "sig")), {
      width: "320",
      height: "240",
      method: "scale",
    });
    assert.deepEqual(
      pngSize(await fetchMedia(message.content.thumbnail_url, "image/png", 'inline; filename="image.png"')),
      { width: 320, height: 240 },
    );
    assert.equal(new URL(message.author.avatar_url).searchParams.get("method"), "crop");
    assert.deepEqual(
      pngSize(await fetchMedia(message.author.avatar_url, "image/png", 'inline; filename="image.png"')),
      { width: 96, height: 96 },
    );
    const info = await eventually(
      async () => {
        const body = await room(service);
        return body.avatar_url ? body : null;
      },
      30_000,
      "the room avatar",
    );
    const original = await fetchMedia(info.avatar_url, "image/png", 'inline; filename="image.png"');
    assert.deepEqual(pngSize(original), { width: 300, height: 300 });
    assert.deepEqual(
      pngSize(await fetchMedia(info.avatar_thumbnail_url, "image/png", 'inline; filename="image.png"')),
      { width: 96, height: 96 },
    );
  });

  test("a location's thumbnail is a 320x240 scale proxy URL", async () => {
    await matrixRequest(
      "PUT",
      `/_matrix/client/v3/rooms/${enc(mediaState.roomId)}/send/m.room.message/location1`,
      mediaState.user.token,
      {
        msgtype: "m.location",
        body: "Here",
        geo_uri: "geo:51.5,-0.1",
        info: { thumbnail_url: mediaState.roomAvatar, thumbnail_info: { mimetype: "image/png", w: 300, h: 300 } },
      },
    );
    const location = await eventually(
      async () => (await list(service)).find((m) => m.content.type === "location"),
      30_000,
      "the location",
    );
    const thumb = new URL(location.content.thumbnail_url);
    assert.equal(thumb.origin, service.url);
    assert.deepEqual(
      [thumb.searchParams.get("width"), thumb.searchParams.get("height"), thumb.searchParams.get("method")],
      ["320", "240", "scale"],
    );
    const { width, height } = pngSize(
      await fetchMedia(location.content.thumbnail_url, "image/png", 'inline; filename="image.png"'),
    );
    assert.ok(width <= 320 && height <= 240, `${width}x${height} fits 320x240`);
  });

  test("identical reads within a minute hand out identical URLs", async () => {
    const [a, b] = await Promise.all([list(service), list(service)]);
    const pick = (data: any[]) => data.find((m) => m.event_id === message.event_id).content.url;
    // Two reads straddling a minute boundary differ; then a third agrees with the second.
    if (pick(a) !== pick(b)) assert.equal(pick(await list(service)), pick(b));
  });

  test("tampered, expired, foreign-server and unknown media URLs are refused", async () => {
    const url = new URL(message.content.url);
    const sig = url.searchParams.get("sig")!;
    const tampered = new URL(url);
    tampered.searchParams.set("sig", (sig[0] === "A" ? "B" : "A") + sig.slice(1));
    await problem(tampered.href, 403, "invalid-media-signature");
    const resized = new URL(url);
    resized.searchParams.set("width", "96");
    resized.searchParams.set("height", "96");
    await problem(resized.href, 403, "invalid-media-signature");
    const thumb = new URL(message.content.thumbnail_url);
    thumb.searchParams.set("method", "crop");
    await problem(thumb.href, 403, "invalid-media-signature");
    const later = new URL(url);
    later.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 60));
    await problem(later.href, 403, "invalid-media-signature");

    const expired = (await signerAt(service, Date.now() - 16 * 60_000)).sign(
      mediaState.photo,
      "original",
      service.url,
    )!;
    await problem(expired, 403, "media-url-expired");

    const foreign = new URL(url);
    foreign.pathname = foreign.pathname.replace(`/${TEST_SERVER_NAME}/`, "/other.example/");
    await problem(foreign.href, 404, "unknown-media-server");
    await problem(
      service.services.mediaUrls.sign(`mxc://${TEST_SERVER_NAME}/NoSuchMedia0123456789`, "original", service.url)!,
      404,
      "media-not-found",
    );
  });

  test("malformed media ids and thumbnail parameters are validation errors", async () => {
    const url = new URL(message.content.url);
    const mediaPath = (id: string) => `${service.url}/api/v1/media/${TEST_SERVER_NAME}/${id}${url.search}`;
    await problem(mediaPath("abc.def"), 400, "validation-error");
    await problem(mediaPath("a%2Fb"), 400, "validation-error");
    await problem(mediaPath("a".repeat(256)), 400, "validation-error");
    const withQuery = (changes: Record<string, string | null>) => {
      const u = new URL(message.content.url);
      for (const [k, v] of Object.entries(changes)) v === null ? u.searchParams.delete(k) : u.searchParams.set(k, v);
      return u.href;
    };
    await problem(withQuery({ width: "320" }), 400, "validation-error");
    await problem(withQuery({ height: "240" }), 400, "validation-error");
    await problem(withQuery({ method: "crop" }), 400, "validation-error");
    await problem(withQuery({ width: "0", height: "240" }), 400, "validation-error");
    await problem(withQuery({ width: "4097", height: "240" }), 400, "validation-error");
    await problem(withQuery({ width: "320", height: "240", method: "stretch" }), 400, "validation-error");
    await problem(withQuery({ expires: "soon" }), 400, "validation-error");
    await problem(withQuery({ sig: null }), 400, "validation-error");
    // The largest valid size is accepted by validation (and refused by the signature).
    await problem(withQuery({ width: "4096", height: "4096" }), 403, "invalid-media-signature");
  });

  test("SVG is served as an attachment; a type off the allow-list (HTML) as an octet-stream attachment", async () => {
    const svgBytes = await fetchMedia(
      service.services.mediaUrls.sign(mediaState.svg, "original", service.url)!,
      "image/svg+xml",
      'attachment; filename="image.svg"',
    );
    assert.ok(svgBytes.equals(svg()));
    const htmlBytes = await fetchMedia(
      service.services.mediaUrls.sign(mediaState.html, "original", service.url)!,
      "application/octet-stream",
      'attachment; filename="file.bin"',
    );
    assert.ok(htmlBytes.equals(html()));
  });

  test("X-Forwarded-Host from an untrusted peer is ignored", async () => {
    const data = await list(service, { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" });
    assert.equal(new URL(data.find((m) => m.event_id === message.event_id).content.url).origin, service.url);
  });

  test("SSE payloads carry proxy URLs absolute against the stream request's Host", async () => {
    const sse = await SseClient.open(`${service.url}${pagePath}/sse`);
    try {
      assert.equal(sse.status, 200);
      await new Promise((r) => setTimeout(r, 300));
      await matrixRequest(
        "PUT",
        `/_matrix/client/v3/rooms/${enc(mediaState.roomId)}/send/m.room.message/photo2`,
        mediaState.user.token,
        {
          msgtype: "m.image",
          body: "again.png",
          url: mediaState.photo,
          info: { mimetype: "image/png", w: 640, h: 480, size: photo.length },
        },
      );
      const created = await eventually(
        async () =>
          sse.messages.find((m) => m.data.type === "message_created" && m.data.payload.content.type === "media")?.data
            .payload,
        30_000,
        "message_created",
      );
      assert.ok(created.content.url.startsWith(`${service.url}/api/v1/media/`), created.content.url);
      assert.ok(created.author.avatar_url.startsWith(`${service.url}/api/v1/media/`));
    } finally {
      sse.close();
    }
  });
});

/** A second service on the first one's database (its comments and media secret), configured otherwise. */
function serviceOnSameDatabase(overrides: Record<string, unknown>): { service: TestService } {
  const holder = {} as { service: TestService };
  before(async () => {
    holder.service = await startTestService({ databaseUrl: mediaState.dbUrl, sites, overrides });
    // The client's connection pool may still hold a connection to the instance stopped before
    // this one (same port): the first request meets it closed. Spend that on a throwaway read.
    await fetch(`${holder.service.url}/health`).catch(() => undefined);
  });
  after(async () => holder.service?.stop());
  return holder;
}

describe("the media proxy with public_base_url and a small size cap", () => {
  const running = serviceOnSameDatabase({
    "server.public_base_url": "https://comments.example/base/",
    "media.proxy_max_bytes": 1000,
  });

  test("URLs are absolute against public_base_url, whatever the Host", async () => {
    const [message] = (await list(running.service, { "x-forwarded-host": "other.example" })).filter(
      (m) => m.content.type === "media",
    );
    assert.match(
      message.content.url,
      /^https:\/\/comments\.example\/base\/api\/v1\/media\/localhost\/[A-Za-z0-9_-]+\?expires=\d+&sig=/,
    );
    assert.match(message.author.avatar_url, /^https:\/\/comments\.example\/base\/api\/v1\/media\//);
  });

  test("media over the cap is refused", async () => {
    const bytes = png(640, 480, 2000);
    assert.ok(bytes.length > 1000);
    const big = await upload(mediaState.user.token, bytes, "image/png");
    await problem(
      running.service.services.mediaUrls.sign(big, "original", running.service.url)!,
      404,
      "media-too-large",
    );
  });
});

describe("the media proxy disabled", () => {
  const running = serviceOnSameDatabase({ "media.proxy_enabled": false, "rate_limit.media_proxy": 3 });

  test("reads show raw mxc URLs and the proxy answers 404", async () => {
    const message = (await list(running.service)).find((m) => m.content.type === "media");
    assert.equal(message.content.url, mediaState.photo);
    assert.equal(message.content.thumbnail_url, null, "no thumbnail of its own");
    assert.equal(message.author.avatar_url, mediaState.avatar);
    const info = await room(running.service);
    assert.equal(info.avatar_url, mediaState.roomAvatar);
    assert.equal(info.avatar_thumbnail_url, mediaState.roomAvatar);
    await problem(
      running.service.services.mediaUrls.sign(mediaState.photo, "original", running.service.url)!,
      404,
      "media-proxy-disabled",
    );
  });

  test("proxy requests spend the media_proxy budget", async () => {
    const url = running.service.services.mediaUrls.sign(mediaState.photo, "original", running.service.url)!;
    await problem(url, 404, "media-proxy-disabled");
    await problem(url, 404, "media-proxy-disabled");
    const res = await fetch(url);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("retry-after"), "3600");
    assert.equal(((await res.json()) as { code: string }).code, "rate-limited");
  });
});

describe("the media proxy behind a trusted proxy, with the homeserver down", () => {
  const running = serviceOnSameDatabase({
    "server.trusted_proxies": ["loopback"],
    "matrix.homeserver_url": "http://127.0.0.1:9",
  });

  test("X-Forwarded-Host and -Proto from a trusted proxy make the base", async () => {
    const message = (
      await list(running.service, { "x-forwarded-host": "comments.example", "x-forwarded-proto": "https" })
    ).find((m) => m.content.type === "media");
    assert.match(message.content.url, /^https:\/\/comments\.example\/api\/v1\/media\//);
    const plain = (await list(running.service)).find((m) => m.content.type === "media");
    assert.equal(new URL(plain.content.url).origin, running.service.url);
  });

  test("a homeserver that cannot be reached is 503 media-unavailable", async () => {
    await problem(
      running.service.services.mediaUrls.sign(mediaState.photo, "original", running.service.url)!,
      503,
      "media-unavailable",
    );
  });
});
