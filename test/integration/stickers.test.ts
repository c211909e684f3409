// Sticker packs over real HTTP against the real test Synapse, on SQLite and PostgreSQL: add,
// replace and remove images (both delete forms, owner and operator), the state event on the
// site's Space, a pack edited in a Matrix client, and the refusals.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { MatrixNames } from "../../src/matrix/names.ts";
import { eventually, PROVIDERS, serviceFor, uniqueSiteId } from "../support/harness.ts";
import { getState, matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import { TEST_OPERATOR_TOKEN, TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { call, ok } from "../support/calls.ts";
import { statusAndCode } from "../support/problems.ts";
import { registerSite } from "../support/sites.ts";

const enc = encodeURIComponent;
const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const claim = (token: string) => ({ "x-service-claim-token": token });
const mxc = (id: string) => `mxc://${TEST_SERVER_NAME}/${id}`;

const shortcodes = (pack: any) => pack.images.map((i: any) => i.shortcode);

for (const provider of PROVIDERS) {
  describe(`sticker packs (${provider})`, () => {
    const holder = serviceFor(provider);

    test("add, replace and remove images; the pack is the Space's m.room.image_pack state", async () => {
      const { service } = holder;
      const { siteId, claimToken: token } = await registerSite(service, uniqueSiteId("stickers"));
      const packs = `/api/v1/sites/${siteId}/packs/cats/stickers`;
      assert.deepEqual(
        await ok(call(service, "GET", `/api/v1/sites/${siteId}/stickers`)),
        { packs: [] },
        "a new site has no packs",
      );
      const nothing = await ok(call(service, "DELETE", `${packs}/purr`, claim(token)));
      assert.deepEqual(nothing, {
        pack_id: "cats",
        display_name: null,
        avatar_url: null,
        avatar_proxy_url: null,
        images: [],
      });
      assert.equal(
        (await service.services.db.site.findUniqueOrThrow({ where: { id: siteId } })).spaceRoomId,
        null,
        "a removal creates no Space",
      );

      const first = await ok(
        call(service, "POST", packs, claim(token), {
          shortcode: "purr",
          url: mxc("purr1"),
          body: "Purring",
          info: { w: 64, h: 64, mimetype: "image/png" },
        }),
      );
      assert.equal(first.pack_id, "cats");
      assert.equal(first.display_name, "cats", "a new pack is named after its id");
      assert.equal(first.avatar_url, null);
      assert.equal(first.avatar_proxy_url, null);
      assert.equal(first.images.length, 1);
      const [purr] = first.images;
      assert.deepEqual(
        { ...purr, proxy_url: undefined },
        {
          shortcode: "purr",
          url: mxc("purr1"),
          proxy_url: undefined,
          body: "Purring",
          info: { w: 64, h: 64, mimetype: "image/png" },
        },
      );
      assert.match(
        purr.proxy_url,
        /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/media\/localhost\/purr1\?width=320&height=240&method=scale&expires=\d+&sig=/,
        "a signed preview URL",
      );

      await ok(call(service, "POST", packs, claim(token), { shortcode: "hiss", url: mxc("hiss") }));
      const replaced = await ok(call(service, "POST", packs, claim(token), { shortcode: "purr", url: mxc("purr2") }));
      assert.deepEqual(shortcodes(replaced), ["hiss", "purr"], "by shortcode");
      assert.deepEqual(
        replaced.images[1],
        { ...replaced.images[1], url: mxc("purr2"), body: null, info: null },
        "replaced whole",
      );

      // Read back at once (the service applied the event it sent), and in Matrix.
      const listed = await ok(call(service, "GET", `/api/v1/sites/${siteId}/stickers`));
      assert.deepEqual(
        listed.packs.map((p: any) => ({ ...p, images: shortcodes(p) })),
        [{ ...replaced, images: ["hiss", "purr"] }],
      );
      const space = await resolveAlias(names.alias(names.spaceAliasLocalpart(siteId)));
      const state = await getState(space, "m.room.image_pack", "cats");
      assert.deepEqual(state, {
        pack: { display_name: "cats", usage: ["sticker"] },
        images: { purr: { url: mxc("purr2") }, hiss: { url: mxc("hiss") } },
      });

      const removed = await ok(call(service, "DELETE", `${packs}/purr`, claim(token)));
      assert.deepEqual(shortcodes(removed), ["hiss"]);
      assert.deepEqual(
        shortcodes(await ok(call(service, "DELETE", `${packs}/purr`, claim(token)))),
        ["hiss"],
        "removing a missing image is a no-op",
      );
      assert.deepEqual(
        shortcodes(await ok(call(service, "DELETE", `${packs}?shortcode=hiss`, claim(token)))),
        [],
        "the ?shortcode= form",
      );
      assert.deepEqual(
        shortcodes(await ok(call(service, "DELETE", `${packs}?shortcode=hiss`, claim(token)))),
        [],
        "again: a no-op",
      );
      const none = await ok(call(service, "DELETE", `/api/v1/sites/${siteId}/packs/dogs/stickers/woof`, claim(token)));
      assert.deepEqual(
        none,
        { pack_id: "dogs", display_name: null, avatar_url: null, avatar_proxy_url: null, images: [] },
        "a missing pack: nothing written",
      );
      assert.deepEqual(
        (await ok(call(service, "GET", `/api/v1/sites/${siteId}/stickers`))).packs.map((p: any) => p.pack_id),
        ["cats"],
      );
    });

    test("the operator mirrors", async () => {
      const { service } = holder;
      const { siteId } = await registerSite(service, uniqueSiteId("stickers"));
      const packs = `/api/v1/operator/sites/${siteId}/packs/ops/stickers`;
      assert.deepEqual(
        shortcodes(await ok(call(service, "POST", packs, OPERATOR, { shortcode: "a", url: mxc("a") }))),
        ["a"],
      );
      assert.deepEqual(
        shortcodes(await ok(call(service, "POST", packs, OPERATOR, { shortcode: "b", url: mxc("b"), body: "B" }))),
        ["a", "b"],
      );
      assert.deepEqual(shortcodes(await ok(call(service, "DELETE", `${packs}/a`, OPERATOR))), ["b"]);
      assert.deepEqual(shortcodes(await ok(call(service, "DELETE", `${packs}?shortcode=b`, OPERATOR))), []);
      assert.equal(
        await statusAndCode(call(service, "POST", packs, {}, { shortcode: "a", url: mxc("a") })),
        "403 invalid-operator-token",
      );

      const unknown = `/api/v1/operator/sites/${uniqueSiteId("nope")}/packs/ops/stickers`;
      assert.equal(
        await statusAndCode(call(service, "POST", unknown, OPERATOR, { shortcode: "a", url: mxc("a") })),
        "404 site-not-found",
      );
      assert.equal(await statusAndCode(call(service, "DELETE", `${unknown}/a`, OPERATOR)), "404 site-not-found");
      assert.equal(
        await statusAndCode(call(service, "DELETE", `${unknown}?shortcode=a`, OPERATOR)),
        "404 site-not-found",
      );

      // A retiring site (as a retirement request leaves it until the pass clears it) takes no edits.
      await service.services.db.site.update({ where: { id: siteId }, data: { status: "retiring" } });
      assert.equal(
        await statusAndCode(call(service, "POST", packs, OPERATOR, { shortcode: "a", url: mxc("a") })),
        "410 site-retired",
      );
      assert.equal(await statusAndCode(call(service, "DELETE", `${packs}/a`, OPERATOR)), "410 site-retired");
      assert.equal(await statusAndCode(call(service, "DELETE", `${packs}?shortcode=a`, OPERATOR)), "410 site-retired");
    });
  });
}

describe("sticker packs: Matrix edits and refusals", () => {
  const holder = serviceFor("sqlite");

  test("a pack edited in a Matrix client by a Space admin is reflected in reads, and kept by API edits", async () => {
    const { service } = holder;
    const { siteId, claimToken: token } = await registerSite(service, uniqueSiteId("stickers"));
    await ok(
      call(service, "POST", `/api/v1/sites/${siteId}/packs/cats/stickers`, claim(token), {
        shortcode: "purr",
        url: mxc("purr"),
      }),
    );
    const space = await resolveAlias(names.alias(names.spaceAliasLocalpart(siteId)));

    // An ordinary account made admin of the Space edits the pack and adds another.
    const admin = await registerMatrixUser(`stickeradmin${randomBytes(4).toString("hex")}`);
    await matrixRequest("POST", `/_matrix/client/v3/rooms/${enc(space)}/invite`, undefined, { user_id: admin.userId });
    await matrixRequest("POST", `/_matrix/client/v3/join/${enc(space)}`, admin.token, {});
    const levels = await getState(space, "m.room.power_levels");
    await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(space)}/state/m.room.power_levels/`, undefined, {
      ...levels,
      users: { ...levels.users, [admin.userId]: 100 },
    });
    const edited = {
      pack: { display_name: "Cats!", avatar_url: mxc("catavatar"), usage: ["sticker"] },
      images: { purr: { url: mxc("purr"), body: "Purr" }, smile: { url: mxc("smile"), usage: ["emoticon"] } },
    };
    await matrixRequest(
      "PUT",
      `/_matrix/client/v3/rooms/${enc(space)}/state/m.room.image_pack/cats`,
      admin.token,
      edited,
    );
    await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(space)}/state/m.room.image_pack/birds`, admin.token, {
      images: { tweet: { url: mxc("tweet") } },
    });

    const listed = await eventually(
      async () => {
        const { body } = await call(service, "GET", `/api/v1/sites/${siteId}/stickers`);
        return body.packs.length === 2 && body.packs[1].display_name === "Cats!" && body.packs;
      },
      20_000,
      "the Matrix edit in the listing",
    );
    assert.deepEqual(
      listed.map((p: any) => [p.pack_id, shortcodes(p)]),
      [
        ["birds", ["tweet"]],
        ["cats", ["purr"]],
      ],
      "emoticon-only images are not stickers",
    );
    assert.equal(listed[1].avatar_url, mxc("catavatar"));
    assert.match(listed[1].avatar_proxy_url, /\/api\/v1\/media\/localhost\/catavatar\?width=96&height=96&method=crop&/);
    assert.equal(listed[1].images[0].body, "Purr");

    // An API edit starts from the homeserver's state: the client's changes stay.
    await ok(
      call(service, "POST", `/api/v1/sites/${siteId}/packs/cats/stickers`, claim(token), {
        shortcode: "hiss",
        url: mxc("hiss"),
      }),
    );
    assert.deepEqual(await getState(space, "m.room.image_pack", "cats"), {
      ...edited,
      images: { ...edited.images, hiss: { url: mxc("hiss") } },
    });

    // Removing the state (empty content, as Matrix clients do) removes the pack.
    await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(space)}/state/m.room.image_pack/birds`, admin.token, {});
    await eventually(
      async () => {
        const { body } = await call(service, "GET", `/api/v1/sites/${siteId}/stickers`);
        return body.packs.length === 1;
      },
      20_000,
      "the removed pack gone",
    );
  });

  test("refusals: unregistered site, claim token, invalid ids and urls", async () => {
    const { service } = holder;
    const { siteId, claimToken: token } = await registerSite(service, uniqueSiteId("stickers"));
    const packs = `/api/v1/sites/${siteId}/packs/cats/stickers`;
    const unknown = uniqueSiteId("nope");
    assert.equal(await statusAndCode(call(service, "GET", `/api/v1/sites/${unknown}/stickers`)), "404 site-not-found");
    assert.equal(await statusAndCode(call(service, "GET", `/api/v1/sites/Bad_Id/stickers`)), "400 validation-error");
    assert.equal(
      await statusAndCode(
        call(service, "POST", `/api/v1/sites/${unknown}/packs/cats/stickers`, claim(token), {
          shortcode: "a",
          url: mxc("a"),
        }),
      ),
      "404 site-not-found",
    );

    assert.equal(
      await statusAndCode(call(service, "POST", packs, {}, { shortcode: "a", url: mxc("a") })),
      "403 invalid-claim-token",
    );
    assert.equal(
      await statusAndCode(call(service, "POST", packs, claim("wrong"), { shortcode: "a", url: mxc("a") })),
      "403 invalid-claim-token",
    );
    assert.equal(await statusAndCode(call(service, "DELETE", `${packs}/a`, claim("wrong"))), "403 invalid-claim-token");
    assert.equal(await statusAndCode(call(service, "DELETE", `${packs}?shortcode=a`)), "403 invalid-claim-token");

    const refused = [
      { shortcode: "a b", url: mxc("a") },
      { shortcode: "a", url: "https://example.com/a.png" },
      { shortcode: "a", url: "mxc://elsewhere.example/a" },
      { shortcode: "a", url: mxc("a/b") },
      { shortcode: "a", url: mxc("a"), info: [1] },
      { shortcode: "a" },
    ];
    for (const body of refused)
      assert.equal(
        await statusAndCode(call(service, "POST", packs, claim(token), body)),
        "400 validation-error",
        JSON.stringify(body),
      );
    assert.equal(
      await statusAndCode(
        call(service, "POST", `/api/v1/sites/${siteId}/packs/${"x".repeat(65)}/stickers`, claim(token), {
          shortcode: "a",
          url: mxc("a"),
        }),
      ),
      "400 validation-error",
    );
    assert.equal(
      await statusAndCode(call(service, "DELETE", `${packs}/${enc("a:b")}`, claim(token))),
      "400 validation-error",
    );
    assert.equal(
      await statusAndCode(call(service, "DELETE", packs, claim(token))),
      "400 validation-error",
      "the ?shortcode= form needs it",
    );
    // Nothing was written.
    assert.deepEqual(await ok(call(service, "GET", `/api/v1/sites/${siteId}/stickers`)), { packs: [] });
  });
});
