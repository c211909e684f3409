// The operator routes of imports and exports, and the round trip, on real SQLite and PostgreSQL
// against the real homeserver: a site made of an import (through the operator route, polled to
// its end) and visitors' own writes (a reply, an edit, a reaction, a poll); its export streamed
// in each format; the jsonl export imported into a fresh site reads the same, item for item
// (order, authors, text, times, threads); the Disqus and WordPress exports import with their
// importers and read the same text, order, times and threads.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "smol-toml";
import {
  eventually,
  PROVIDERS,
  serviceFor,
  TEST_ORIGIN,
  testConfigDocument,
  type TestService,
} from "../support/harness.ts";
import { TEST_OPERATOR_TOKEN } from "../support/environment.ts";
import { disqusXml } from "../support/import-fixtures.ts";
import { listComments, whenListed } from "../support/reads.ts";
import { registerSite } from "../support/sites.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { Visitor } from "../support/visitor.ts";

const root = resolve(import.meta.dirname, "../..");
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const enc = encodeURIComponent;

async function importFile(service: TestService, siteId: string, from: string, content: string | Buffer) {
  const file = join(tmpdir(), `roundtrip-${randomBytes(4).toString("hex")}`);
  writeFileSync(file, content);
  const config = join(tmpdir(), `roundtrip-${randomBytes(4).toString("hex")}.toml`);
  writeFileSync(config, stringify(testConfigDocument({ databaseUrl: service.config.database.url })));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/import.ts", "--config", config, "--json", "--site", siteId, "--from", from, file],
    { cwd: root },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  const status = await new Promise<number | null>((r) => child.on("close", r));
  assert.equal(status, 0, output);
}

/** Every page of a site as the public read shows it, waiting until each has `counts[slug]` comments. */
async function readSite(service: TestService, siteId: string, counts: Record<string, number>) {
  const reads: Record<string, any[]> = {};
  for (const [slug, count] of Object.entries(counts)) {
    reads[slug] = await eventually(
      async () => {
        const data = (await listComments(service, siteId, slug, { per_page: 100 })).data;
        return data.length >= count ? data : null;
      },
      30_000,
      `${count} comments on ${siteId}/${slug}`,
    );
  }
  return reads;
}

/**
 * A read reduced to what a round trip keeps: order, author name, text (with its HTML when the
 * format carries it exactly), time (to the second for WordPress, whose dates have no more), and
 * the thread by position.
 */
function comparable(read: any[], options: { html: boolean; seconds?: boolean }) {
  const index = new Map(read.map((m, i) => [m.event_id, i]));
  return read.map((m) => ({
    author: m.author.display_name,
    body: m.content.body,
    ...(options.html ? { format: m.content.format, formatted_body: m.content.formatted_body } : {}),
    created_at: options.seconds ? m.created_at.replace(/\.\d+Z$/, ".000Z") : m.created_at,
    reply_to: m.reply_to === null ? null : index.get(m.reply_to),
    thread_root: m.thread_root === null ? null : index.get(m.thread_root),
  }));
}

const exportOf = async (service: TestService, siteId: string, format: string) => {
  const res = await fetch(`${service.url}/api/v1/operator/sites/${siteId}/export?format=${format}`, {
    headers: OPERATOR,
  });
  assert.equal(res.status, 200);
  return { type: res.headers.get("content-type"), text: await res.text() };
};

for (const provider of PROVIDERS) {
  describe(`import and export: operator routes and the round trip (${provider})`, () => {
    const holder = serviceFor(provider);

    test("an import through the operator route, polled to its end; the export round trip", async () => {
      const service = holder.service;
      const { siteId } = await registerSite(service, undefined, [TEST_ORIGIN]);

      // Refusals first: an unknown format, a site that is not registered, an unknown job.
      const badFormat = await fetch(`${service.url}/api/v1/operator/sites/${siteId}/imports?from=livefyre`, {
        method: "POST",
        headers: OPERATOR,
        body: "x",
      });
      assert.equal(badFormat.status, 400);
      // `since` is declared a date-time (RFC 3339, with its offset): anything else is refused
      // before the body is read.
      const badSince = await fetch(
        `${service.url}/api/v1/operator/sites/${siteId}/imports?from=disqus&since=yesterday`,
        {
          method: "POST",
          headers: OPERATOR,
          body: disqusXml(),
        },
      );
      assert.equal(badSince.status, 400);
      const sinceProblem = (await badSince.json()) as { code: string; errors: Array<{ field: string }> };
      assert.equal(sinceProblem.code, "validation-error");
      assert.deepEqual(
        sinceProblem.errors.map((e) => e.field),
        ["since"],
      );
      const noSite = await fetch(`${service.url}/api/v1/operator/sites/no-such-site-0/imports?from=disqus`, {
        method: "POST",
        headers: OPERATOR,
        body: disqusXml(),
      });
      assert.equal(noSite.status, 404);
      assert.equal(((await noSite.json()) as { code: string }).code, "site-not-found");
      const badExport = await fetch(`${service.url}/api/v1/operator/sites/${siteId}/export?format=csv`, {
        headers: OPERATOR,
      });
      assert.equal(badExport.status, 400);
      const noSiteExport = await fetch(`${service.url}/api/v1/operator/sites/no-such-site-0/export`, {
        headers: OPERATOR,
      });
      assert.equal(noSiteExport.status, 404);
      const noJob = await fetch(`${service.url}/api/v1/operator/imports/nothing`, { headers: OPERATOR });
      assert.equal(noJob.status, 404);

      const started = await fetch(`${service.url}/api/v1/operator/sites/${siteId}/imports?from=disqus`, {
        method: "POST",
        headers: { ...OPERATOR, "content-type": "application/xml" },
        body: disqusXml(),
      });
      assert.equal(started.status, 202);
      const job = (await started.json()) as { id: string; status: string };
      assert.equal(job.status, "running");
      const done = await eventually(
        async () => {
          const res = await fetch(`${service.url}/api/v1/operator/imports/${job.id}`, { headers: OPERATOR });
          const body = (await res.json()) as any;
          return body.status !== "running" ? body : null;
        },
        60_000,
        "the import job",
      );
      assert.equal(done.status, "succeeded", JSON.stringify(done));
      assert.equal(done.report.comments, 7);
      assert.equal(done.progress.comments_done, 9);

      // Visitors write beside the imported comments: a reply to one, an edit, a reaction, a poll.
      const visitor = new Visitor(service.url, TEST_ORIGIN);
      const base = `/api/v1/sites/${siteId}/pages/about`;
      const list = () => listComments(service, siteId, "about").then((r) => r.data);
      const imported = (await eventually(async () => ((await list()).length === 1 ? await list() : null)))[0];
      const reply = await whenListed(
        await visitor.post(
          `${base}/comments`,
          await visitor.commentBody(siteId, "about", "A visitor's reply", {
            reply_to: imported.event_id,
            thread_root: imported.event_id,
            display_name: "Vera",
          }),
          { "idempotency-key": "r-1" },
        ),
        list,
      );
      const edited = "A visitor's reply (edited)";
      const edit = await visitor.send(
        "PATCH",
        `${base}/comments/${enc(reply.event_id)}`,
        {
          content: edited,
          ...(await visitor.proof((ch) => signatureArrays.editComment(siteId, "about", reply.event_id, edited, ch))),
        },
        { "idempotency-key": "e-1" },
      );
      assert.equal(edit.status, 202);
      const react = await visitor.send("POST", `${base}/comments/${enc(imported.event_id)}/reactions`, {
        key: "👍",
        ...(await visitor.proof((ch) => signatureArrays.react(siteId, "about", imported.event_id, "👍", ch))),
      });
      assert.equal(react.status, 204);
      const pollRes = await visitor.send(
        "POST",
        `${base}/polls`,
        {
          question: "More posts?",
          options: ["Yes", "No"],
          ...(await visitor.proof((ch) =>
            signatureArrays.createPoll(siteId, "about", "More posts?", ["Yes", "No"], 1, null, null, ch),
          )),
        },
        { "idempotency-key": "p-1" },
      );
      const poll = await whenListed(pollRes, list, "the poll");
      await eventually(async () => {
        const read = await list();
        return read.find((m) => m.event_id === reply.event_id)?.content.body === edited &&
          read.find((m) => m.event_id === imported.event_id)?.reactions.length === 1
          ? read
          : null;
      });

      // The export: every page, every comment with its thread, author, time, latest text, reactions, poll.
      const jsonl = await exportOf(service, siteId, "jsonl");
      assert.match(jsonl.type ?? "", /^application\/jsonl/);
      const lines = jsonl.text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      assert.equal(lines[0].type, "site");
      assert.deepEqual(
        lines.filter((l) => l.type === "page").map((l) => l.page_slug),
        ["about", "posts-hello-world"],
      );
      const exported = lines.filter((l) => l.type === "comment");
      assert.equal(exported.length, 9, "seven imported, a reply and a poll");
      const exportedReply = exported.find((c) => c.id === reply.event_id);
      assert.equal(exportedReply.content.body, edited);
      assert.ok(exportedReply.edited_at);
      assert.deepEqual(exportedReply.author, { kind: "visitor", name: "Vera", id: visitor.key });
      assert.deepEqual(exported.find((c) => c.id === imported.event_id).reactions, [{ key: "👍", count: 1 }]);
      assert.equal(exported.find((c) => c.id === poll.event_id).content.type, "poll");
      assert.doesNotMatch(jsonl.text, /@example\.org|claim_token|hmac|secret/i, "no email and no secret in an export");

      // The jsonl export into a fresh site: it reads the same, item for item (the poll aside, which is not imported).
      const counts = { about: 2, "posts-hello-world": 6 };
      const original = await readSite(service, siteId, { about: 3, "posts-hello-world": 6 });
      original.about = original.about!.filter((m) => m.content.type === "text");
      const copy = (await registerSite(service)).siteId;
      await importFile(service, copy, "jsonl", jsonl.text);
      const copied = await readSite(service, copy, counts);
      for (const slug of Object.keys(counts))
        assert.deepEqual(comparable(copied[slug]!, { html: true }), comparable(original[slug]!, { html: true }), slug);

      // The Disqus and WordPress exports import with their importers: the same text, order, times and threads.
      for (const format of ["disqus", "wordpress"] as const) {
        const exportedXml = await exportOf(service, siteId, format);
        const target = (await registerSite(service)).siteId;
        await importFile(service, target, format, exportedXml.text);
        const read = await readSite(service, target, counts);
        for (const slug of Object.keys(counts)) {
          assert.deepEqual(
            comparable(read[slug]!, { html: false, seconds: format === "wordpress" }),
            comparable(original[slug]!, { html: false, seconds: format === "wordpress" }),
            `${format} ${slug}`,
          );
        }
      }
    });
  });
}
