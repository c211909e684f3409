// Routes that wait on the homeserver, with the homeserver down and then back, over real HTTP:
// a service whose matrix.homeserver_url is a closed port answers uploads, avatar writes and
// sticker edits 503 homeserver-unavailable with Retry-After and records nothing (the
// Idempotency-Key is not consumed); on the same database with the real Synapse, the same
// requests succeed, and what the homeserver refuses for good is 502 homeserver-refused.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { freshDatabase, startTestService, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { png } from "../support/media-fixtures.ts";
import { TEST_OPERATOR_TOKEN, TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { MatrixNames } from "../../src/matrix/names.ts";
import { closedUrl } from "../support/closed-url.ts";
import { statusAndCode } from "../support/problems.ts";

const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const SITE = uniqueSiteId("hs-down");
const PAGE = "page";
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const mxc = (id: string) => `mxc://${TEST_SERVER_NAME}/${id}`;

/** A 503 homeserver-unavailable with its constant Retry-After. */
async function unavailable(pending: Promise<Response>, what: string): Promise<void> {
  const res = await pending;
  assert.equal(await statusAndCode(res), "503 homeserver-unavailable", what);
  assert.equal(res.headers.get("retry-after"), "30", what);
}

describe("routes that wait on the homeserver", () => {
  let database: { url: string; drop: () => Promise<void> };
  let service: TestService | null = null;
  const newVisitor = () => new Visitor(service!.url, TEST_ORIGIN);
  let visitor: Visitor;
  let claimToken: string;
  let stickerSite: string;
  const avatarKey = randomUUID();
  const uploadKey = randomUUID();
  const image = png(32, 32);

  const start = async (overrides: Record<string, unknown>) => {
    await service?.stop();
    service = await startTestService({
      databaseUrl: database.url,
      sites: { [SITE]: { origins: [TEST_ORIGIN] } },
      overrides,
    });
    // The client's connection pool may still hold a connection to the instance stopped before.
    await fetch(`${service.url}/health`).catch(() => undefined);
  };
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${service!.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const putAvatar = async () => {
    const { path, body } = await visitor.avatarRequest(SITE, image, "image/png");
    return visitor.send("PUT", path, body, { "idempotency-key": avatarKey });
  };
  const uploadMedia = async () => {
    const { path, body } = await visitor.uploadRequest(SITE, PAGE, image, "image/png", "cat.png");
    return visitor.send("POST", path, body, { "idempotency-key": uploadKey });
  };
  const claim = () => ({ "x-service-claim-token": claimToken });
  /** Every sticker edit route, owner and operator, both delete forms. */
  const stickerEdits = () => {
    const owner = `/api/v1/sites/${stickerSite}/packs/cats/stickers`;
    const operator = `/api/v1/operator/sites/${stickerSite}/packs/cats/stickers`;
    return [
      ["addSticker", () => call("POST", owner, claim(), { shortcode: "purr", url: mxc("purr") })],
      ["removeSticker", () => call("DELETE", `${owner}/purr`, claim())],
      ["removeStickerAlternate", () => call("DELETE", `${owner}?shortcode=purr`, claim())],
      ["operatorAddSticker", () => call("POST", operator, OPERATOR, { shortcode: "purr", url: mxc("purr") })],
      ["operatorRemoveSticker", () => call("DELETE", `${operator}/purr`, OPERATOR)],
      ["operatorRemoveStickerAlternate", () => call("DELETE", `${operator}?shortcode=purr`, OPERATOR)],
    ] as const;
  };

  before(async () => {
    database = await freshDatabase("sqlite");
    await start({ "matrix.homeserver_url": await closedUrl() });
    visitor = newVisitor();
    const res = await call("POST", "/api/v1/sites", {}, { site_id: uniqueSiteId("hs-down-stickers") });
    const registered = (await res.json()) as { site_id: string; claim_token: string };
    assert.equal(res.status, 201, JSON.stringify(registered));
    stickerSite = registered.site_id;
    claimToken = registered.claim_token;
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  test("with the homeserver down: 503 homeserver-unavailable, Retry-After, nothing recorded", async () => {
    const db = service!.services.db;
    await unavailable(putAvatar(), "avatar upload");
    await unavailable(uploadMedia(), "media upload");
    const author = visitor.key;
    assert.equal(
      await db.idempotencyRecord.count({ where: { authorPublicKey: author } }),
      0,
      "no Idempotency-Key consumed",
    );
    assert.equal(await db.mediaUpload.count(), 0, "no upload recorded");
    assert.equal(await db.visitorAvatar.count(), 0, "no avatar recorded");

    // Deleting an avatar the service has on record needs the homeserver too; the record stays.
    const userId = names.visitorUserId(SITE, visitor.publicKey);
    await db.visitorAvatar.create({ data: { userId, url: mxc("earlier") } });
    await unavailable(visitor.send("DELETE", await visitor.deleteAvatarPath(SITE), undefined), "avatar deletion");
    assert.equal((await db.visitorAvatar.findUnique({ where: { userId } }))?.url, mxc("earlier"));
    await db.visitorAvatar.delete({ where: { userId } });

    // A first sticker creates the site's Space: nothing is created.
    const [[, add], , , [, operatorAdd]] = stickerEdits();
    await unavailable(add(), "addSticker without a Space");
    await unavailable(operatorAdd(), "operatorAddSticker without a Space");
    assert.equal((await db.site.findUniqueOrThrow({ where: { id: stickerSite } })).spaceRoomId, null);
    // With a Space on record, every edit reads the pack from the homeserver first.
    await db.site.update({ where: { id: stickerSite }, data: { spaceRoomId: `!gone:${TEST_SERVER_NAME}` } });
    for (const [operationId, send] of stickerEdits()) await unavailable(send(), operationId);
  });

  test("with the homeserver back: the same requests succeed; permanent refusals are 502 homeserver-refused", async () => {
    await start({});
    const db = service!.services.db;
    const avatar = await putAvatar();
    assert.equal(avatar.status, 200, await avatar.clone().text());
    assert.equal(avatar.headers.get("idempotent-replayed"), null, "performed now, not a replay");
    assert.match(((await avatar.json()) as { avatar_url: string }).avatar_url, /\/api\/v1\/media\//);
    const upload = await uploadMedia();
    assert.equal(upload.status, 200, await upload.clone().text());
    assert.equal(upload.headers.get("idempotent-replayed"), null);
    assert.equal(await db.mediaUpload.count(), 1);

    // The Space on record is no room of the bot's: the homeserver refuses, for good.
    for (const [operationId, send] of stickerEdits())
      assert.equal(await statusAndCode(await send()), "502 homeserver-refused", operationId);
    // A visitor user the homeserver never registered: its profile cannot be changed.
    const stranger = newVisitor();
    await db.visitorAvatar.create({
      data: { userId: names.visitorUserId(SITE, stranger.publicKey), url: mxc("earlier") },
    });
    assert.equal(
      await statusAndCode(await stranger.send("DELETE", await stranger.deleteAvatarPath(SITE), undefined)),
      "502 homeserver-refused",
    );

    await db.site.update({ where: { id: stickerSite }, data: { spaceRoomId: null } });
    const [[, add]] = stickerEdits();
    const added = await add();
    assert.equal(added.status, 200, await added.clone().text());
    assert.deepEqual(
      ((await added.json()) as { images: Array<{ shortcode: string }> }).images.map((i) => i.shortcode),
      ["purr"],
    );
  });
});
