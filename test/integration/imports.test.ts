// npm run import, on real SQLite and PostgreSQL against the real homeserver: each format's
// fixture (test/support/import-fixtures.ts) imported into a site, every page read back through
// the public comment list and compared with what the fixture says (authors, text, times,
// threads); a second run sends nothing; a run SIGKILLed midway and resumed leaves each comment
// once; malformed files are refused with the line, before anything is sent.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { stringify } from "smol-toml";
import { eventually, PROVIDERS, serviceFor, testConfigDocument, type TestService } from "../support/harness.ts";
import { listComments } from "../support/reads.ts";
import { registerSite } from "../support/sites.ts";
import {
  commentoJson,
  disqusXml,
  expectedReads,
  remark42Backup,
  STORY_PAGES,
  wordpressWxr,
  type StoryComment,
} from "../support/import-fixtures.ts";

const root = resolve(import.meta.dirname, "../..");

function tempFile(name: string, content: string | Buffer): string {
  const file = join(tmpdir(), `import-${randomBytes(4).toString("hex")}-${name}`);
  writeFileSync(file, content);
  return file;
}

const configFileOf = (service: TestService) =>
  tempFile(
    "config.toml",
    stringify(
      testConfigDocument({
        databaseUrl: service.config.database.url,
        registrationFile: service.config.matrix.registrationFile,
      }),
    ),
  );

/**
 * Runs `npm run import` to its end with --json; its exit code and report. Asynchronously: the
 * service under test runs in this process and must go on answering the homeserver meanwhile.
 */
async function runImport(configFile: string, args: string[]) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/import.ts", "--config", configFile, "--json", ...args],
    {
      cwd: root,
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const status = await new Promise<number | null>((resolveExit) => child.on("close", (code) => resolveExit(code)));
  const report = stdout.trim() ? JSON.parse(stdout.trim().split("\n").pop()!) : null;
  return { status, report, output: stdout + stderr };
}

/** Every page of the story, read back until the projection shows `count` comments on it. */
async function readStory(service: TestService, siteId: string) {
  const expected = expectedReads();
  const reads: Record<string, any[]> = {};
  for (const [slug, wanted] of Object.entries(expected)) {
    reads[slug] = await eventually(
      async () => {
        const page = await listComments(service, siteId, slug, { per_page: 100 });
        return page.data.length >= wanted.length ? page.data : null;
      },
      30_000,
      `${wanted.length} comments on ${slug}`,
    );
  }
  return reads;
}

/** Compares each page's read with the story: item for item, order, author, text, time, thread. */
function assertReadsLikeStory(reads: Record<string, any[]>) {
  for (const [slug, wanted] of Object.entries(expectedReads())) {
    const read = reads[slug]!;
    assert.equal(read.length, wanted.length, `${slug}: ${JSON.stringify(read.map((m) => m.content.body))}`);
    const storyIdOf = new Map<string, string>();
    read.forEach((message, i) => storyIdOf.set(message.event_id, wanted[i]!.id));
    read.forEach((message, i) => {
      const w = wanted[i]!;
      assert.equal(message.author.display_name, w.author, `${slug} #${i} author`);
      assert.equal(message.content.type, "text");
      assert.equal(message.content.body, w.body, `${slug} #${i} body`);
      assert.equal(message.created_at, w.time, `${slug} #${i} time`);
      assert.equal(
        message.reply_to === null ? null : storyIdOf.get(message.reply_to),
        w.parent,
        `${slug} #${i} reply_to`,
      );
      assert.equal(
        message.thread_root === null ? null : storyIdOf.get(message.thread_root),
        w.root,
        `${slug} #${i} thread_root`,
      );
      assert.equal(message.author.type, "matrix", "an imported author is a (virtual) Matrix user, with no visitor key");
      assert.doesNotMatch(JSON.stringify(message), /@example\.org/, "no email reaches a read");
    });
  }
  const first = reads[STORY_PAGES.hello.slug]![0]!;
  assert.equal(first.content.format, "org.matrix.custom.html");
  assert.doesNotMatch(first.content.formatted_body, /script|onclick|javascript:/);
  assert.match(first.content.formatted_body, /<a href="https:\/\/example\.org\/x">this link<\/a>/);
}

const FORMATS: Array<{ from: string; file: () => string | Buffer; name: string }> = [
  { from: "disqus", name: "disqus.xml.gz", file: () => gzipSync(disqusXml()) },
  { from: "wordpress", name: "wordpress.xml", file: () => wordpressWxr("1.2") },
  { from: "remark42", name: "remark42.jsonl", file: () => remark42Backup() },
  { from: "commento", name: "commento.json", file: () => commentoJson() },
];

for (const provider of PROVIDERS) {
  describe(`import (${provider})`, () => {
    const holder = serviceFor(provider);
    let configFile: string;
    before(() => {
      configFile = configFileOf(holder.service);
    });

    for (const format of FORMATS) {
      test(`${format.from}: every page reads as the file says; a second run sends nothing`, async () => {
        const { siteId } = await registerSite(holder.service);
        const file = tempFile(format.name, format.file());
        const first = await runImport(configFile, ["--site", siteId, "--from", format.from, file]);
        assert.equal(first.status, 0, first.output);
        const r = first.report;
        assert.equal(r.comments, 7, first.output);
        assert.equal(r.pages, 2);
        assert.equal(r.authors, 4);
        assert.equal(r.threads, 2, "101's and 104's");
        assert.equal(r.orphans, 1);
        // Remark42 has no spam flag: its fixture marks both deleted.
        assert.equal(r.skipped.deleted, format.from === "remark42" ? 2 : 1);
        assert.equal(r.skipped.spam, format.from === "remark42" ? 0 : 1);
        if (format.from === "wordpress") assert.equal(r.skipped.pingback, 1);
        assertReadsLikeStory(await readStory(holder.service, siteId));

        const second = await runImport(configFile, ["--site", siteId, "--from", format.from, file]);
        assert.equal(second.status, 0, second.output);
        assert.equal(second.report.comments, 0, second.output);
        assert.equal(second.report.already_present, 7);
        await new Promise((r) => setTimeout(r, 1000));
        assertReadsLikeStory(await readStory(holder.service, siteId));
      });
    }

    test("remark42: a pinned comment is pinned in its room", async () => {
      const { siteId } = await registerSite(holder.service);
      const run = await runImport(configFile, [
        "--site",
        siteId,
        "--from",
        "remark42",
        tempFile("r.jsonl", remark42Backup()),
      ]);
      assert.equal(run.status, 0, run.output);
      const reads = await readStory(holder.service, siteId);
      const roomId = reads[STORY_PAGES.hello.slug]![0]!.room_id;
      const pinned = await holder.service.services.homeserver.stateContent(roomId, "m.room.pinned_events");
      assert.deepEqual(pinned?.pinned, [reads[STORY_PAGES.hello.slug]![0]!.event_id]);
    });

    test("--dry-run reports and sends nothing; --map and --since choose pages and comments", async () => {
      const { siteId } = await registerSite(holder.service);
      const file = tempFile("d.xml", disqusXml());
      const dry = await runImport(configFile, ["--site", siteId, "--from", "disqus", "--dry-run", file]);
      assert.equal(dry.status, 0, dry.output);
      assert.equal(dry.report.comments, 7);
      assert.equal(dry.report.dry_run, true);
      assert.equal((await listComments(holder.service, siteId, STORY_PAGES.hello.slug)).data.length, 0);
      const mapped = await runImport(configFile, [
        "--site",
        siteId,
        "--from",
        "disqus",
        "--map",
        "^https://blog\\.example/posts/([^/]+)/$=>$1",
        "--since",
        "2020-01-02T00:00:00Z",
        file,
      ]);
      assert.equal(mapped.status, 0, mapped.output);
      assert.equal(mapped.report.skipped.before_since, 3);
      const page = await eventually(async () => {
        const read = await listComments(holder.service, siteId, "hello-world");
        return read.data.length === 3 ? read.data : null;
      });
      assert.deepEqual(
        page.map((m: any) => m.content.body),
        ["Second thread.", "Listed before my parent.", "My parent is gone."],
      );
    });

    test("a run SIGKILLed midway and run again leaves each comment once", async () => {
      const { siteId } = await registerSite(holder.service);
      // Six pages of ten comments each (replies among them), sent one page at a time.
      const comments: StoryComment[] = [];
      for (let p = 0; p < 6; p++) {
        for (let i = 0; i < 10; i++) {
          comments.push({
            id: `${p}-${i}`,
            page: "hello",
            parent: i > 0 && i % 3 === 0 ? `${p}-${i - 1}` : null,
            author: `Author ${i % 4}`,
            email: `a${i % 4}@example.org`,
            time: new Date(Date.UTC(2020, 0, 1 + p, 10, i)).toISOString(),
            html: `<p>Comment ${p}-${i}</p>`,
          });
        }
      }
      const xml = disqusXml(comments).replace(/<thread dsq:id="9000"\/>/g, () => '<thread dsq:id="9000"/>');
      // Each page its own thread: rewrite posts' thread references by their page number.
      const perPage = xml.replace(
        /<post dsq:id="(\d)-(\d)">([\s\S]*?)<thread dsq:id="9000"\/>/g,
        (_m, p, i, body) => `<post dsq:id="${p}-${i}">${body}<thread dsq:id="t${p}"/>`,
      );
      const threads = Array.from(
        { length: 6 },
        (_, p) =>
          `<thread dsq:id="t${p}"><id>p${p}</id><link>https://blog.example/kill/${p}</link><title>P${p}</title></thread>`,
      ).join("\n");
      const file = tempFile("kill.xml", perPage.replace("</disqus>", `${threads}\n</disqus>`));
      const args = [
        "--import",
        "tsx",
        "src/cli/import.ts",
        "--config",
        configFile,
        "--site",
        siteId,
        "--from",
        "disqus",
        "--concurrency",
        "1",
        file,
      ];
      const child = spawn(process.execPath, args, { cwd: root });
      let output = "";
      const killed = await new Promise<NodeJS.Signals | null>((resolveExit) => {
        child.stderr.on("data", (chunk: Buffer) => {
          output += chunk.toString("utf8");
          if (/\[2\/\d+\]/.test(output)) child.kill("SIGKILL");
        });
        child.on("exit", (_code, signal) => resolveExit(signal));
      });
      assert.equal(killed, "SIGKILL", output);
      assert.doesNotMatch(output, /\[8\/8\]/, "killed before it finished");

      const resumed = await runImport(configFile, ["--site", siteId, "--from", "disqus", file]);
      assert.equal(resumed.status, 0, resumed.output);
      assert.ok(resumed.report.already_present >= 20, resumed.output);
      assert.equal(resumed.report.comments + resumed.report.already_present, 60);
      for (let p = 0; p < 6; p++) {
        const read = await eventually(async () => {
          const page = await listComments(holder.service, siteId, `kill-${p}`, { per_page: 100 });
          return page.data.length >= 10 ? page.data : null;
        });
        await new Promise((r) => setTimeout(r, 200));
        const again = (await listComments(holder.service, siteId, `kill-${p}`, { per_page: 100 })).data;
        assert.deepEqual(
          again.map((m: any) => m.content.body),
          Array.from({ length: 10 }, (_, i) => `Comment ${p}-${i}`),
          "each comment once, in order",
        );
        assert.equal(read.length, 10);
      }
    });
  });
}

describe("import: malformed files are refused with the line, before anything is sent", () => {
  const holder = serviceFor("sqlite");
  let configFile: string;
  let siteId: string;
  before(async () => {
    configFile = configFileOf(holder.service);
    siteId = (await registerSite(holder.service)).siteId;
  });

  const refused = async (from: string, name: string, content: string | Buffer, line: RegExp) => {
    const run = await runImport(configFile, ["--site", siteId, "--from", from, tempFile(name, content)]);
    assert.equal(run.status, 6, run.output);
    assert.match(run.report.error, line, run.output);
    assert.match(run.output, /nothing was sent/);
    return run;
  };

  test("truncated XML", async () => {
    const xml = disqusXml();
    await refused(
      "disqus",
      "t.xml",
      xml.slice(0, xml.indexOf("<post", xml.indexOf("<post") + 10) + 200),
      /^line \d+: /,
    );
  });

  test("bytes that are not UTF-8 name their line", async () => {
    // One Latin-1 byte (ü) inside an otherwise UTF-8 file.
    const [before, after] = disqusXml().split("Grüße") as [string, string];
    const xml = Buffer.concat([Buffer.from(`${before}Gr`), Buffer.from([0xfc]), Buffer.from(`ße${after}`)]);
    const line =
      disqusXml()
        .split("\n")
        .findIndex((l) => l.includes("Grüße")) + 1;
    await refused("disqus", "e.xml", xml, new RegExp(`^line ${line}: bytes that are not utf-8`));
  });

  test("an entity bomb (a DOCTYPE with entity declarations) is refused, not expanded", async () => {
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<disqus><post dsq:id="1"><message>&lol3;</message></post></disqus>`;
    await refused("disqus", "b.xml", bomb, /^line \d: a DOCTYPE is not accepted/);
  });

  test("a 100 MB element is refused at its line with bounded memory", async () => {
    const head = disqusXml().split("</disqus>")[0]!;
    const line = head.split("\n").length;
    const huge = Buffer.concat([
      Buffer.from(`${head}<post dsq:id="x"><message>`),
      Buffer.alloc(100 * 1024 * 1024, "a"),
      Buffer.from("</message></post></disqus>"),
    ]);
    const run = await refused(
      "disqus",
      "h.xml",
      gzipSync(huge),
      new RegExp(`^line ${line}: the text of <message> is longer than`),
    );
    assert.ok(run);
  });

  test("a file of another format is refused with its own exit code; a missing file is a usage error", async () => {
    const wrong = await runImport(configFile, [
      "--site",
      siteId,
      "--from",
      "disqus",
      tempFile("w.xml", wordpressWxr("1.2")),
    ]);
    assert.equal(wrong.status, 7, wrong.output);
    assert.match(wrong.report.error, /the file is not a Disqus export: its root element is <rss>, not <disqus>/);
    assert.match(wrong.output, /nothing was sent/);
    const missing = await runImport(configFile, ["--site", siteId, "--from", "disqus", "/nonexistent/export.xml"]);
    assert.equal(missing.status, 2, missing.output);
    assert.match(missing.output, /^import: \/nonexistent\/export\.xml: cannot be read \(no such file\)\n$/);
  });

  test("a Remark42 line that is not JSON, and a Commento file cut short", async () => {
    const lines = remark42Backup().split("\n");
    lines[3] = lines[3]!.slice(0, 20);
    await refused("remark42", "r.jsonl", lines.join("\n"), /^line 4: not JSON/);
    const commento = commentoJson();
    await refused("commento", "c.json", commento.slice(0, commento.length / 2), /^line \d+: /);
  });
});
