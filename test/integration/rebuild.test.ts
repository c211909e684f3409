// npm run rebuild, on real SQLite and PostgreSQL: the read model rebuilt from the event store
// gives exactly the QUERY responses the live projection gave, and announces nothing.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { stringify } from "smol-toml";
import { openDatabase } from "../../src/db/client.ts";
import { MatrixNames } from "../../src/matrix/names.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import {
  eventually,
  freshDatabase,
  PROVIDERS,
  startTestService,
  TEST_ORIGIN,
  testConfigDocument,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { TEST_HS_TOKEN, TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { pageHistory, roomEvents } from "../support/room-events.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments } from "../support/reads.ts";

const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const root = resolve(import.meta.dirname, "../..");

for (const provider of PROVIDERS) {
  describe(`rebuild on ${provider}`, () => {
    const siteId = uniqueSiteId("rebuild");
    let databaseUrl: string;
    let drop: () => Promise<void>;
    let service: TestService;
    const start = async (overrides: Record<string, unknown> = {}) =>
      (service = await startTestService({ databaseUrl, sites: { [siteId]: { origins: [TEST_ORIGIN] } }, overrides }));

    before(async () => {
      ({ url: databaseUrl, drop } = await freshDatabase(provider));
      await start();
    });

    after(async () => {
      await service?.stop();
      await drop?.();
    });

    test("the rebuilt read model answers every QUERY exactly as before", async () => {
      const visitor = new Visitor(service.url, TEST_ORIGIN);
      const transaction = async (txnId: string, events: unknown[]) => {
        const res = await fetch(`${service.url}/_matrix/app/v1/transactions/${txnId}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${TEST_HS_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ events }),
        });
        assert.equal(res.status, 200);
      };
      const record = async (page: string, roomId: string) => {
        await service.services.db.room.create({ data: { roomId, siteId, pageSlug: page, roomVersion: "12" } });
        await service.services.projector.replayWaiting(roomId);
      };

      // A visitor's comment through the API, the queue and the real homeserver.
      const path = `/api/v1/sites/${siteId}/pages/real/comments`;
      assert.equal(
        (
          await visitor.post(
            path,
            await visitor.commentBody(siteId, "real", "Through Synapse", { display_name: "Ada" }),
            { "idempotency-key": "real" },
          )
        ).status,
        202,
      );

      // A page's history, delivered newest first.
      const historyRoom = `!history-${randomBytes(4).toString("hex")}:localhost`;
      await record("history", historyRoom);
      for (const [i, event] of pageHistory(historyRoom, names.botUserId, names.visitorUserId(siteId, visitor.publicKey))
        .events.reverse()
        .entries()) {
        await transaction(`history-${i}`, [event]);
      }

      // An author who renamed and left (the captured profile shows), an unapplyable event, and
      // events that waited for their room.
      const other = roomEvents(`!other-${randomBytes(4).toString("hex")}:localhost`);
      const dave = "@dave:localhost";
      await transaction("other-early", [other.member(dave, "Dave"), other.text(dave, "before the room was recorded")]);
      await record("other", other.roomId);
      await transaction("other-later", [
        other.text(dave, "hello"),
        other.raw(dave, "m.room.message", null as never),
        other.member(dave, "Dave Renamed"),
        other.member(dave, "Dave Renamed", "leave"),
      ]);
      const stray = roomEvents("!never-recorded:localhost");
      await transaction("stray", [stray.text(dave, "in a room the service does not know")]);

      const pages = ["real", "history", "other"];
      const reads = async () => {
        const out: Record<string, unknown> = {};
        for (const page of pages) {
          for (const [kind, body] of Object.entries({
            anonymous: { per_page: 100 },
            personalized: {
              per_page: 100,
              author_public_key: visitor.key,
              author_signature: visitor.sign(signatureArrays.queryComments(siteId, page)),
            },
          })) {
            out[`${page} ${kind}`] = await listComments(service, siteId, page, body);
          }
        }
        return out;
      };
      await eventually(
        async () => ((await reads())["real anonymous"] as any).data.length === 1,
        30_000,
        "the visitor's comment",
      );
      // What the homeserver pushes after the comment shows (the room's later events) must be in
      // the store both snapshots are taken from: the instance stops, and one on another port (the
      // homeserver cannot reach it) answers the reads.
      await service.stop();
      await start({ "server.listen_port": 0 });
      const expected = await reads();
      assert.equal(
        (expected["other anonymous"] as any).data[1].author.display_name,
        "Dave",
        "the profile captured when the comment was sent, its author having left",
      );
      const stored = async (db = service.services.db) => ({
        events: await db.matrixEvent.findMany({ orderBy: { seq: "asc" }, select: { eventId: true, status: true } }),
        repairs: await db.projectionRepair.findMany({
          orderBy: { targetEventId: "asc" },
          select: { targetEventId: true, status: true, reason: true, attempts: true },
        }),
        liveEvents: await db.liveEvent.count(),
      });
      const before = await stored();
      assert.equal(before.repairs.length, 1);
      assert.ok(before.events.some((e) => e.status === "waiting"));
      await service.stop();

      const configFile = join(tmpdir(), `rebuild-${randomBytes(4).toString("hex")}.toml`);
      writeFileSync(configFile, stringify(testConfigDocument({ databaseUrl })));
      const cli = spawnSync(process.execPath, ["--import", "tsx", "src/cli/rebuild.ts", "--config", configFile], {
        cwd: root,
        encoding: "utf8",
      });
      assert.equal(cli.status, 0, cli.stderr);
      assert.match(
        cli.stdout,
        new RegExp(
          `^rebuild: replayed ${before.events.length} events in [\\d.]+ s — \\d+ applied, 1 waiting for their room, 1 failed`,
        ),
      );

      const db = await openDatabase(databaseUrl);
      try {
        assert.deepEqual(await stored(db), before, "the same event statuses and repairs, and no live event");
      } finally {
        await db.$disconnect();
      }
      // On another port: the client's pooled connections to the stopped instance are dead.
      await start({ "server.listen_port": 0 });
      assert.deepEqual(await reads(), expected);
    });
  });
}
