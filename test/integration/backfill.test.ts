// npm run backfill, on real SQLite and PostgreSQL against the real homeserver: a site with
// comments, a reply, an edit, reactions, a poll with votes, a redaction, a plain Matrix
// account's comment and an upgraded page room; the database lost; the backfill killed midway and
// run again; every read answers as before. What Matrix does not hold stays lost (spec items 4
// and 10): a site registered through the API comes back without its ownership proof.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { stringify } from "smol-toml";
import { openDatabase } from "../../src/db/client.ts";
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
import { TEST_OPERATOR_TOKEN, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments, whenListed } from "../support/reads.ts";
import { matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import { call, ok } from "../support/calls.ts";
import { expectProblem } from "../support/problems.ts";
import { registerSite } from "../support/sites.ts";
import { closedUrl } from "../support/closed-url.ts";

const root = resolve(import.meta.dirname, "../..");
const enc = encodeURIComponent;
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };

/** Runs the backfill command to its end. */
const backfill = (configFile: string, ...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", "src/cli/backfill.ts", "--config", configFile, ...args], {
    cwd: root,
    encoding: "utf8",
  });

function writeConfig(document: Record<string, unknown>): string {
  const file = join(tmpdir(), `backfill-${randomBytes(4).toString("hex")}.toml`);
  writeFileSync(file, stringify(document));
  return file;
}

/**
 * Reads without what Matrix no longer holds: the submission a deleted comment came from (its
 * proof block went with the redacted content).
 */
function unrecoverable(reads: Record<string, any>): Record<string, any> {
  const copy = structuredClone(reads);
  for (const read of Object.values(copy)) {
    for (const message of Array.isArray(read?.data) ? read.data : [])
      if (message.status === "redacted") delete message.submission_id;
  }
  return copy;
}

for (const provider of PROVIDERS) {
  describe(`backfill on ${provider}`, () => {
    const declared = uniqueSiteId("bf");
    const sites = { [declared]: { origins: [TEST_ORIGIN] } };
    let registered: string;
    let original: { url: string; drop: () => Promise<void> };
    let rebuilt: { url: string; drop: () => Promise<void> };
    let service: TestService | undefined;

    before(async () => {
      original = await freshDatabase(provider);
      rebuilt = await freshDatabase(provider);
    });

    after(async () => {
      await service?.stop();
      await original?.drop();
      await rebuilt?.drop();
    });

    test("a backfill into an empty database, killed once and resumed, answers every read as before", async () => {
      service = await startTestService({ databaseUrl: original.url, sites });
      const alice = new Visitor(service.url, TEST_ORIGIN);
      const bob = new Visitor(service.url, TEST_ORIGIN);
      const base = (page: string, site = declared) => `/api/v1/sites/${site}/pages/${page}`;
      const list =
        (page: string, site = declared) =>
        async () =>
          (await listComments(service!, site, page, { per_page: 100 })).data;
      const comment = async (
        visitor: Visitor,
        page: string,
        text: string,
        extra: { reply_to?: string; display_name?: string } = {},
        site = declared,
      ) =>
        whenListed(
          await visitor.post(`${base(page, site)}/comments`, await visitor.commentBody(site, page, text, extra), {
            "idempotency-key": `c-${Math.random()}`,
          }),
          list(page, site),
          text,
        );
      const shows = (page: string, what: string, check: (m: any[]) => boolean) =>
        eventually(async () => check(await list(page)()), 30_000, what);

      // The main page: comments, a reply, an edit, reactions, a poll with votes, a redaction.
      const first = await comment(alice, "main", "First!", { display_name: "Ada" });
      const reply = await comment(bob, "main", "A reply", { reply_to: first.event_id, display_name: "Bob" });
      const edited = "First! (edited)";
      const editRes = await alice.send(
        "PATCH",
        `${base("main")}/comments/${enc(first.event_id)}`,
        {
          content: edited,
          ...(await alice.proof((ch) => signatureArrays.editComment(declared, "main", first.event_id, edited, ch))),
        },
        { "idempotency-key": "edit" },
      );
      assert.equal(editRes.status, 202);
      for (const [visitor, target, key] of [
        [bob, first, "👍"],
        [alice, first, "👍"],
        [alice, reply, "🎉"],
      ] as const) {
        const res = await visitor.send("POST", `${base("main")}/comments/${enc(target.event_id)}/reactions`, {
          key,
          ...(await visitor.proof((ch) => signatureArrays.react(declared, "main", target.event_id, key, ch))),
        });
        assert.equal(res.status, 204);
      }
      const pollRes = await alice.send(
        "POST",
        `${base("main")}/polls`,
        {
          question: "Tea or coffee?",
          options: ["Tea", "Coffee"],
          ...(await alice.proof((ch) =>
            signatureArrays.createPoll(declared, "main", "Tea or coffee?", ["Tea", "Coffee"], 1, null, null, ch),
          )),
        },
        { "idempotency-key": "poll" },
      );
      const poll = await whenListed(pollRes, list("main"), "the poll");
      for (const [visitor, option] of [
        [alice, 0],
        [bob, 1],
      ] as const) {
        const optionId = poll.content.options[option].id;
        const res = await visitor.send("POST", `${base("main")}/polls/${enc(poll.event_id)}/votes`, {
          option_id: optionId,
          ...(await visitor.proof((ch) => signatureArrays.vote(declared, "main", poll.event_id, optionId, ch))),
        });
        assert.equal(res.status, 204);
      }
      const doomed = await comment(bob, "main", "Regrettable");
      const deleteRes = await bob.send(
        "DELETE",
        `${base("main")}/comments/${enc(doomed.event_id)}`,
        await bob.proof((ch) => signatureArrays.deleteComment(declared, "main", doomed.event_id, ch)),
        { "idempotency-key": "delete" },
      );
      assert.equal(deleteRes.status, 202);

      // A plain Matrix account joins the page room and comments from its own client.
      const mainRoom = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${declared}_main:localhost`);
      const dana = await registerMatrixUser(`dana-${randomBytes(4).toString("hex")}`);
      await matrixRequest("POST", `/_matrix/client/v3/join/${enc(mainRoom)}`, dana.token, {});
      await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(mainRoom)}/send/m.room.message/dana-1`, dana.token, {
        msgtype: "m.text",
        body: "From my own client",
      });

      // An upgraded page: a comment in the old room; the bot (its creator) upgrades it through the
      // Matrix API, the service is told of the successor, and the next comment goes there.
      await comment(alice, "upgraded", "Before the upgrade");
      const oldRoom = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${declared}_upgraded:localhost`);
      const { replacement_room: newRoom } = await matrixRequest<{ replacement_room: string }>(
        "POST",
        `/_matrix/client/v3/rooms/${enc(oldRoom)}/upgrade`,
        undefined,
        { new_version: "12" },
      );
      await service.services.db.room.update({ where: { roomId: oldRoom }, data: { state: "superseded" } });
      await service.services.db.room.create({
        data: { roomId: newRoom, siteId: declared, pageSlug: "upgraded", roomVersion: "12" },
      });
      await service.services.projector.replayWaiting(newRoom);
      const after = await comment(alice, "upgraded", "After the upgrade");
      assert.equal(
        (await service.services.db.comment.findUniqueOrThrow({ where: { eventId: after.event_id } })).roomId,
        newRoom,
      );

      // A site registered through the API, with a verified origin (its ownership proof).
      ({ siteId: registered } = await registerSite(service, uniqueSiteId("bf-api"), [TEST_ORIGIN]));
      await comment(alice, "p", "On a registered site", {}, registered);

      await shows(
        "main",
        "the edit, the reactions, the votes and the redaction",
        (m) =>
          m.some((c) => c.content.body === edited) &&
          m.some((c) => c.event_id === doomed.event_id && c.status === "redacted") &&
          m.some((c) => c.content.body === "From my own client") &&
          m.find((c) => c.event_id === first.event_id)?.reactions[0]?.count === 2 &&
          m.find((c) => c.event_id === poll.event_id)?.content.responses?.length === 2,
      );

      const reads = async () => {
        const out: Record<string, unknown> = {};
        const get = async (path: string) => (await call(service!, "GET", path)).body;
        for (const [site, page] of [
          [declared, "main"],
          [declared, "upgraded"],
          [registered, "p"],
        ] as const) {
          out[`${site}/${page} anonymous`] = await listComments(service!, site, page, { per_page: 100 });
          out[`${site}/${page} alice`] = await listComments(service!, site, page, {
            per_page: 100,
            author_public_key: alice.key,
            author_signature: alice.sign(signatureArrays.queryComments(site, page)),
          });
          out[`${site}/${page} room`] = await get(`${base(page, site)}/room`);
          out[`${site}/${page} roles`] = await get(`${base(page, site)}/roles`);
          out[`${site}/${page} moderators`] = await get(`${base(page, site)}/moderators`);
          out[`${site} roles`] = await get(`/api/v1/sites/${site}/roles`);
          out[`${site} stickers`] = await get(`/api/v1/sites/${site}/stickers`);
        }
        return out;
      };
      const expected = await reads();
      const siteRow = async (site: string) =>
        (await ok(call(service!, "QUERY", "/api/v1/operator/sites", OPERATOR, { site_id: site }))).data[0];
      const registeredBefore = await siteRow(registered);
      assert.equal(registeredBefore.verified, true);
      await service.stop();
      service = undefined;

      // The database is lost. The backfill of the declared site is killed after its first room…
      const configFile = writeConfig(testConfigDocument({ databaseUrl: rebuilt.url, sites }));
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "src/cli/backfill.ts", "--config", configFile, "--site", declared, "--page-size", "3"],
        { cwd: root },
      );
      let output = "";
      let errors = "";
      child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")));
      const killed = await new Promise<NodeJS.Signals | null>((resolveExit) => {
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString("utf8");
          if (/\[1\/4\]/.test(output)) child.kill("SIGKILL");
        });
        child.on("exit", (_code, signal) => resolveExit(signal));
      });
      assert.equal(killed, "SIGKILL", output + errors);
      assert.match(
        output,
        /^backfill: 4 rooms to read$/m,
        "the Space, the main page and the upgraded page's two rooms",
      );
      assert.doesNotMatch(output, /\[4\/4\]/, "killed before it finished");
      const midway = await openDatabase(rebuilt.url);
      try {
        const progress = await midway.backfillProgress.findMany();
        assert.ok(progress.length >= 1 && progress.length < 4, `some rooms read, not all: ${JSON.stringify(progress)}`);
      } finally {
        await midway.$disconnect();
      }

      // …and run again: it resumes, each room from where it stopped.
      const resumed = backfill(configFile, "--site", declared, "--page-size", "3");
      assert.equal(resumed.status, 0, resumed.stdout + resumed.stderr);
      assert.match(
        resumed.stdout,
        new RegExp(`\\[1/4\\] ${declared} \\(space\\) \\S+ space: 0 events read \\(\\d+ in all\\)`),
        "the Space was read before the kill",
      );
      assert.match(
        resumed.stdout,
        new RegExp(`\\[3/4\\] ${declared}/upgraded ${oldRoom.replace(/[.$]/g, "\\$&")} superseded: `),
      );
      assert.match(
        resumed.stdout,
        new RegExp(`\\[4/4\\] ${declared}/upgraded ${newRoom.replace(/[.$]/g, "\\$&")} active: `),
      );
      assert.match(resumed.stdout, /^backfill: 1 sites, 4 rooms, \d+ events read; 0 rooms failed$/m);
      // Every site (the one just read included: nothing new to read there).
      const all = backfill(configFile);
      assert.equal(all.status, 0, all.stdout + all.stderr);
      assert.match(all.stdout, new RegExp(`\\] ${registered}/p \\S+ active: \\d+ events read`));
      assert.match(all.stdout, new RegExp(`\\] ${declared}/main \\S+ active: 0 events read`));

      service = await startTestService({ databaseUrl: rebuilt.url, sites });
      assert.deepEqual(unrecoverable(await reads()), unrecoverable(expected));

      // Not recoverable: the registered site's ownership proof. It is back, unverified, and takes
      // no writes until it verifies an origin again; the declared site keeps its configuration.
      const kept = ({ site_id, source, status, id_generated, has_secret, space_room_id }: any) => ({
        site_id,
        source,
        status,
        id_generated,
        has_secret,
        space_room_id,
      });
      const registeredAfter = await siteRow(registered);
      assert.deepEqual(kept(registeredAfter), kept(registeredBefore));
      assert.equal(registeredAfter.verified, false);
      await expectProblem(
        await alice.post(`${base("p", registered)}/comments`, await alice.commentBody(registered, "p", "refused")),
        403,
        "site-not-verified",
      );
      const later = await comment(alice, "main", "Writes go on on the declared site");
      assert.equal(later.author.display_name, "Ada", "the visitor keeps the name it had");

      assert.equal((await siteRow(declared)).verified, true);

      // A room the homeserver refuses to read (here: a corrupt resume token) fails alone: the run
      // reads the others and exits 4; once the cause is gone, a run completes.
      await service.stop();
      service = undefined;
      const db = await openDatabase(rebuilt.url);
      try {
        await db.backfillProgress.update({ where: { roomId: mainRoom }, data: { nextToken: "not-a-token" } });
        const partial = backfill(configFile, "--site", declared);
        assert.equal(partial.status, 4, partial.stdout + partial.stderr);
        assert.match(
          partial.stdout,
          new RegExp(`\\[2/4\\] ${declared}/main \\S+ active: 0 events read \\(\\d+ in all\\) FAILED: `),
        );
        assert.match(
          partial.stdout,
          new RegExp(`^backfill: \\[4/4\\] ${declared}/upgraded \\S+ active: 0 events read \\(\\d+ in all\\)$`, "m"),
          "the rooms after it are read",
        );
        assert.match(partial.stdout, /; 1 rooms failed$/m);
        await db.backfillProgress.delete({ where: { roomId: mainRoom } });
      } finally {
        await db.$disconnect();
      }
      assert.equal(backfill(configFile, "--site", declared).status, 0);
    });

    test("exit codes: configuration error 2, homeserver unreachable 3, unknown site 5", async () => {
      const good = writeConfig(testConfigDocument({ databaseUrl: rebuilt.url, sites }));
      assert.equal(backfill(good, "--page-size", "0").status, 2);
      assert.equal(backfill(join(tmpdir(), "no-such-config.toml")).status, 2);
      const unreachable = testConfigDocument({ databaseUrl: rebuilt.url, sites });
      unreachable.matrix.homeserver_url = await closedUrl();
      const down = backfill(writeConfig(unreachable));
      assert.equal(down.status, 3, down.stdout + down.stderr);
      assert.match(down.stdout, /cannot be read/);
      const unknown = backfill(good, "--site", uniqueSiteId("nowhere"));
      assert.equal(unknown.status, 5, unknown.stdout + unknown.stderr);
      const start = spawnSync(
        process.execPath,
        ["--import", "tsx", "src/cli/start.ts", "--config", good, "--backfill-site", uniqueSiteId("nowhere")],
        { cwd: root, encoding: "utf8" },
      );
      assert.equal(start.status, 5, `the start-up mode stops with the backfill's code: ${start.stdout}${start.stderr}`);
    });
  });
}
