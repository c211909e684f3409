// Exact replays of raw-body writes (media uploads, avatar PUTs) through real HTTP and the real
// test Synapse: the same Idempotency-Key and the same query, its challenge already spent, answer
// the original URL with Idempotent-Replayed: true and upload nothing again; also after the
// service restarts on the same database. A spent challenge under a new key is still refused.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  freshDatabase,
  PROVIDERS,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { png } from "../support/media-fixtures.ts";
import { expectProblem } from "../support/problems.ts";

for (const provider of PROVIDERS) {
  describe(`exact replays of uploads and avatars on ${provider}`, () => {
    const siteId = uniqueSiteId("replays");
    const page = "page";
    let database: { url: string; drop: () => Promise<void> };
    let service: TestService;
    let alice: Visitor;

    const start = () =>
      startTestService({ databaseUrl: database.url, sites: { [siteId]: { origins: [TEST_ORIGIN] } } });
    /** One signed request of each kind: an upload and an avatar PUT, each sent as built (same query, same challenge). */
    const requests = async (bytes: Buffer) => ({
      upload: { method: "POST", ...(await alice.uploadRequest(siteId, page, bytes, "image/png", "r.png")) },
      avatar: { method: "PUT", ...(await alice.avatarRequest(siteId, bytes, "image/png")) },
    });
    const send = (request: { method: string; path: string; body: Buffer }, key: string) =>
      alice.send(request.method, request.path, request.body, { "idempotency-key": key });
    const uploads = () => service.services.db.mediaUpload.count();

    before(async () => {
      database = await freshDatabase(provider);
      service = await start();
      alice = new Visitor(service.url, TEST_ORIGIN);
    });
    after(async () => {
      await service?.stop();
      await database.drop();
    });

    test("the same request again (its challenge spent) answers the original URL without a second upload", async () => {
      const sent = await requests(png(6, 6));
      for (const [kind, request] of Object.entries(sent)) {
        const first = await send(request, `exact-${kind}`);
        assert.equal(first.status, 200, await first.clone().text());
        assert.equal(first.headers.get("idempotent-replayed"), null);
        const original = await first.json();
        const recorded = await uploads();

        const again = await send(request, `exact-${kind}`);
        assert.equal(again.status, 200, `${kind}: ${await again.clone().text()}`);
        assert.equal(again.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(await again.json(), original);
        assert.equal(await uploads(), recorded, `${kind}: no second upload recorded`);

        // The spent challenge does not open another write: under a new key it is refused as before.
        await expectProblem(await send(request, `other-${kind}`), 403, "invalid-PoW");
      }
    });

    test("after a restart, the same request again answers the original URL", async () => {
      const sent = await requests(png(7, 7));
      const originals: Record<string, unknown> = {};
      for (const [kind, request] of Object.entries(sent)) {
        const first = await send(request, `restart-${kind}`);
        assert.equal(first.status, 200, await first.clone().text());
        originals[kind] = await first.json();
      }
      const recorded = await uploads();

      await service.stop();
      // The same port: the visitor (and its requests) stay as they were.
      service = await start();

      for (const [kind, request] of Object.entries(sent)) {
        const again = await send(request, `restart-${kind}`);
        assert.equal(again.status, 200, `${kind}: ${await again.clone().text()}`);
        assert.equal(again.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(await again.json(), originals[kind]);
      }
      assert.equal(await uploads(), recorded, "no second upload recorded");
    });
  });
}
