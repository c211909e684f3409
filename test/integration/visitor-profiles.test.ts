// Visitor profiles and avatars over real HTTP against the real test Synapse: the profile of an
// unknown, a commenting and an avatar-carrying visitor (site-scoped); an avatar set from an
// image shows in the profile, in the rooms' member events and on the visitor's old comments; a
// replay sets it again; deletion and its no-op; every refusal the avatar routes declare.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { MatrixNames } from "../../src/matrix/names.ts";
import { eventually, startTestService, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { getState } from "../support/matrix.ts";
import { jpeg, png } from "../support/media-fixtures.ts";
import { TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { statusAndCode } from "../support/problems.ts";
import { listComments, whenListed } from "../support/reads.ts";

const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const SITE = uniqueSiteId("profiles");
const OTHER = uniqueSiteId("profiles-other");
const RETIRED = uniqueSiteId("profiles-retired");
const PAGE = "page";
/** A proxy avatar URL: absolute, 96x96 crop, of a media id of the test homeserver. */
const PROXIED_AVATAR =
  /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/media\/localhost\/([A-Za-z0-9_-]+)\?width=96&height=96&method=crop&expires=\d+&sig=[A-Za-z0-9_-]+$/;

let service: TestService;

const profile = async (site: string, key: string) => {
  const res = await fetch(
    `${service.url}/api/v1/sites/${site}/visitors/profile?author_public_key=${encodeURIComponent(key)}`,
  );
  return { status: res.status, body: (await res.json()) as any };
};

/** The mxc:// URL behind a proxied avatar URL. */
function mxcOf(proxied: string): string {
  const match = PROXIED_AVATAR.exec(proxied);
  assert.ok(match, `a proxied avatar URL: ${proxied}`);
  return `mxc://${TEST_SERVER_NAME}/${match[1]}`;
}

async function putAvatar(
  visitor: Visitor,
  site: string,
  bytes: Buffer,
  key: string | null = randomUUID(),
  mime = "image/png",
): Promise<Response> {
  const { path, body } = await visitor.avatarRequest(site, bytes, mime);
  return visitor.send("PUT", path, body, key === null ? {} : { "idempotency-key": key });
}

const deleteAvatar = async (visitor: Visitor, site: string) =>
  visitor.send("DELETE", await visitor.deleteAvatarPath(site), undefined);

const listed = async (site: string) => (await listComments(service, site, PAGE, { per_page: 100 })).data;

/** Posts a comment and waits until it is listed. */
async function comment(visitor: Visitor, site: string, text: string, displayName?: string): Promise<any> {
  const res = await visitor.post(
    `/api/v1/sites/${site}/pages/${PAGE}/comments`,
    await visitor.commentBody(site, PAGE, text, displayName ? { display_name: displayName } : {}),
    { "idempotency-key": randomUUID() },
  );
  return whenListed(res, () => listed(site), `comment "${text}"`);
}

/** The avatar the visitor's member event in a room carries, read from Synapse. */
const memberAvatar = async (roomId: string, visitor: Visitor, site: string): Promise<string | null> => {
  const member = await getState(roomId, "m.room.member", names.visitorUserId(site, visitor.publicKey));
  return typeof member.avatar_url === "string" && member.avatar_url !== "" ? member.avatar_url : null;
};

/** Waits until the comment's author.avatar_url is `expected` (a media id it contains, or null). */
const commentAvatar = (site: string, eventId: string, expected: string | null) =>
  eventually(
    async () => {
      const shown = (await listed(site)).find((m) => m.event_id === eventId)?.author.avatar_url;
      return (
        (expected === null
          ? shown === null
          : typeof shown === "string" && PROXIED_AVATAR.exec(shown)?.[1] === expected) && { shown }
      );
    },
    20_000,
    `author.avatar_url ${expected}`,
  );

describe("visitor profiles and avatars", () => {
  before(async () => {
    service = await startTestService({
      sites: Object.fromEntries([SITE, OTHER, RETIRED].map((id) => [id, { origins: [TEST_ORIGIN] }])),
    });
    await service.services.db.site.update({ where: { id: RETIRED }, data: { status: "retiring" } });
  });
  after(() => service?.stop());

  test("an unknown visitor has a profile of null fields; malformed keys and unknown sites are refused", async () => {
    const stranger = new Visitor(service.url, TEST_ORIGIN);
    assert.deepEqual(await profile(SITE, stranger.key), {
      status: 200,
      body: { display_name: null, avatar_url: null },
    });
    assert.equal((await profile(SITE, "not-a-key")).body.code, "validation-error");
    assert.equal(
      (await profile(SITE, Buffer.alloc(16).toString("base64url"))).status,
      400,
      "16 bytes are no Ed25519 key",
    );
    assert.deepEqual(
      await profile(uniqueSiteId("nope"), stranger.key).then((r) => `${r.status} ${r.body.code}`),
      "404 site-not-found",
    );
    assert.deepEqual(
      await profile("Bad_Site", stranger.key).then((r) => `${r.status} ${r.body.code}`),
      "400 validation-error",
    );
    const res = await fetch(`${service.url}/api/v1/sites/${SITE}/visitors/profile`);
    assert.equal(await statusAndCode(res), "400 validation-error", "the key is required");
  });

  test("an avatar shows in the profile, the rooms' member events and old comments; a replay sets it again; deletion", async () => {
    const alice = new Visitor(service.url, TEST_ORIGIN);
    const old = await comment(alice, SITE, "before the avatar", "Alice");
    assert.equal(old.author.avatar_url, null);
    assert.deepEqual((await profile(SITE, alice.key)).body, { display_name: "Alice", avatar_url: null });

    const key = randomUUID();
    const image = png(8, 8);
    const set = await putAvatar(alice, SITE, image, key);
    assert.equal(set.status, 200, await set.clone().text());
    assert.equal(set.headers.get("idempotent-replayed"), null);
    const avatar = mxcOf(((await set.json()) as { avatar_url: string }).avatar_url);
    const mediaId = avatar.split("/").at(-1)!;

    const shown = (await profile(SITE, alice.key)).body;
    assert.equal(shown.display_name, "Alice");
    assert.equal(mxcOf(shown.avatar_url), avatar, "the profile shows it, as a proxy URL");
    assert.equal(await memberAvatar(old.room_id, alice, SITE), avatar, "the room's member event carries it");
    await commentAvatar(SITE, old.event_id, mediaId);
    assert.deepEqual(
      (await profile(OTHER, alice.key)).body,
      { display_name: null, avatar_url: null },
      "avatars are site-scoped",
    );

    // The proxy serves it (the upload went to the media repository).
    const bytes = await fetch(shown.avatar_url);
    assert.equal(bytes.status, 200);

    const removed = await deleteAvatar(alice, SITE);
    assert.equal(removed.status, 200);
    assert.deepEqual(await removed.json(), { avatar_url: null });
    assert.deepEqual((await profile(SITE, alice.key)).body, { display_name: "Alice", avatar_url: null });
    assert.equal(await memberAvatar(old.room_id, alice, SITE), null);
    await commentAvatar(SITE, old.event_id, null);

    // The replay answers the same avatar and sets it again.
    const replay = await putAvatar(alice, SITE, image, key);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(mxcOf(((await replay.json()) as { avatar_url: string }).avatar_url), avatar);
    assert.equal(mxcOf((await profile(SITE, alice.key)).body.avatar_url), avatar);
    assert.equal(await memberAvatar(old.room_id, alice, SITE), avatar);
    await commentAvatar(SITE, old.event_id, mediaId);

    // A new avatar replaces it; then deleting twice: the second is a no-op.
    const replaced = await putAvatar(alice, SITE, jpeg(4, 4), randomUUID(), "image/jpeg");
    assert.equal(replaced.status, 200);
    const second = mxcOf(((await replaced.json()) as { avatar_url: string }).avatar_url);
    assert.notEqual(second, avatar);
    assert.equal(await memberAvatar(old.room_id, alice, SITE), second);
    for (const _ of [1, 2]) {
      const res = await deleteAvatar(alice, SITE);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { avatar_url: null });
    }
    assert.deepEqual((await profile(SITE, alice.key)).body, { display_name: "Alice", avatar_url: null });
    assert.equal(await memberAvatar(old.room_id, alice, SITE), null);
  });

  test("an avatar set before the first comment is on it", async () => {
    const bob = new Visitor(service.url, TEST_ORIGIN);
    const set = await putAvatar(bob, SITE, png(2, 2));
    assert.equal(set.status, 200);
    const avatar = mxcOf(((await set.json()) as { avatar_url: string }).avatar_url);
    const first = await comment(bob, SITE, "with an avatar");
    assert.equal(mxcOf(first.author.avatar_url), avatar);
    assert.deepEqual(
      await deleteAvatar(new Visitor(service.url), SITE).then((r) => r.json()),
      { avatar_url: null },
      "a visitor the site does not know: a no-op",
    );
  });

  test("with the media proxy off, avatars are raw mxc:// URLs", async () => {
    const plain = await startTestService({
      sites: { [SITE]: { origins: [TEST_ORIGIN] } },
      overrides: { "server.listen_port": 0, "media.proxy_enabled": false },
    });
    try {
      const dave = new Visitor(plain.url, TEST_ORIGIN);
      const set = await putAvatar(dave, SITE, png(3, 3));
      assert.equal(set.status, 200);
      const { avatar_url } = (await set.json()) as { avatar_url: string };
      assert.match(avatar_url, /^mxc:\/\/localhost\/[A-Za-z0-9_-]+$/);
      const res = await fetch(`${plain.url}/api/v1/sites/${SITE}/visitors/profile?author_public_key=${dave.key}`);
      assert.equal(((await res.json()) as { avatar_url: string }).avatar_url, avatar_url);
    } finally {
      await plain.stop();
    }
  });

  test("refusals of the avatar routes", async () => {
    const carol = new Visitor(service.url, TEST_ORIGIN);
    const image = png(4, 4);
    assert.equal(
      await statusAndCode(await putAvatar(carol, SITE, image, randomUUID(), "video/mp4")),
      "400 validation-error",
      "not an image type",
    );
    assert.equal(
      await statusAndCode(await putAvatar(carol, SITE, image, randomUUID(), "application/pdf")),
      "400 validation-error",
    );
    assert.equal(
      await statusAndCode(await putAvatar(carol, SITE, image, randomUUID(), "image/jpeg")),
      "400 media-type-mismatch",
      "a PNG declared as JPEG",
    );
    assert.equal(
      await statusAndCode(
        await putAvatar(
          carol,
          SITE,
          Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"),
          randomUUID(),
          "image/png",
        ),
      ),
      "400 media-type-mismatch",
      "markup",
    );
    assert.equal(await statusAndCode(await putAvatar(carol, SITE, image, null)), "400 idempotency-key-required");
    assert.equal(await statusAndCode(await putAvatar(carol, SITE, image, "not valid")), "400 invalid-idempotency-key");
    assert.equal(await statusAndCode(await putAvatar(carol, uniqueSiteId("nope"), image)), "404 site-not-found");
    assert.equal(await statusAndCode(await putAvatar(carol, RETIRED, image)), "410 site-retired");
    {
      const { path } = await carol.avatarRequest(SITE, image, "image/png");
      assert.equal(
        await statusAndCode(await carol.send("PUT", path, png(5, 5), { "idempotency-key": randomUUID() })),
        "403 invalid-signature",
        "the proof covers the body's hash",
      );
      const noMime = path.replace(/mime=[^&]*&/, "");
      assert.equal(
        await statusAndCode(await carol.send("PUT", noMime, image, { "idempotency-key": randomUUID() })),
        "400 validation-error",
      );
      assert.equal(
        await statusAndCode(await carol.send("PUT", path, Buffer.alloc(0), { "idempotency-key": randomUUID() })),
        "400 validation-error",
        "an empty body",
      );
    }
    {
      const key = randomUUID();
      const { path, body } = await carol.avatarRequest(SITE, image, "image/png");
      assert.equal((await carol.send("PUT", path, body, { "idempotency-key": key })).status, 200);
      assert.equal(
        await statusAndCode(await carol.send("PUT", path, body, { "idempotency-key": randomUUID() })),
        "403 invalid-PoW",
        "a spent challenge",
      );
      assert.equal(
        await statusAndCode(await putAvatar(carol, SITE, png(6, 6), key)),
        "409 idempotency-key-reused",
        "the key with other bytes",
      );
    }
    assert.deepEqual(
      (await profile(SITE, carol.key)).body.avatar_url !== null,
      true,
      "refused requests changed nothing after the one that succeeded",
    );

    // DELETE
    const signedFor = async (site: string) => carol.deleteAvatarPath(site);
    assert.equal(
      await statusAndCode(await carol.send("DELETE", await signedFor(uniqueSiteId("nope")), undefined)),
      "404 site-not-found",
    );
    assert.equal(
      await statusAndCode(await carol.send("DELETE", await signedFor(RETIRED), undefined)),
      "410 site-retired",
    );
    assert.equal(
      await statusAndCode(await carol.send("DELETE", (await signedFor(OTHER)).replace(OTHER, SITE), undefined)),
      "403 invalid-signature",
      "a proof for another site",
    );
    assert.equal(
      await statusAndCode(await carol.send("DELETE", `/api/v1/sites/${SITE}/visitors/avatar`, undefined)),
      "400 validation-error",
      "no proof",
    );
    const path = await signedFor(SITE);
    assert.equal((await carol.send("DELETE", path, undefined)).status, 200);
    assert.equal(
      await statusAndCode(await carol.send("DELETE", path, undefined)),
      "403 invalid-PoW",
      "a spent challenge",
    );
  });
});
