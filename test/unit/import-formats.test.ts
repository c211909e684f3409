// The import readers, the page mapping and the Matrix HTML reduction, on the fixtures written
// from each format's definition (test/support/import-fixtures.ts): each reader yields the story's
// pages and comments, whatever order the file has them in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { commentoRecords } from "../../src/features/imports/formats/commento.ts";
import { disqusRecords } from "../../src/features/imports/formats/disqus.ts";
import { remark42Records } from "../../src/features/imports/formats/remark42.ts";
import { paragraphs, wordpressRecords } from "../../src/features/imports/formats/wordpress.ts";
import { htmlMessage } from "../../src/features/imports/matrix-html.ts";
import { pageSlugOf, parseMapRule, slugOf } from "../../src/features/imports/page-mapping.ts";
import { serviceJsonlRecords } from "../../src/features/imports/formats/service-jsonl.ts";
import {
  FormatMismatchError,
  ImportFileError,
  type SourceComment,
  type SourceRecord,
} from "../../src/features/imports/records.ts";
import { plainBytes } from "../../src/features/imports/source-bytes.ts";
import { commentoJson, disqusXml, remark42Backup, STORY, wordpressWxr } from "../support/import-fixtures.ts";

/** The bytes in small chunks, so records and characters straddle chunk edges. */
async function* chunked(content: string | Buffer, size = 7): AsyncGenerator<Buffer> {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(records: AsyncGenerator<SourceRecord>): Promise<SourceRecord[]> {
  const all: SourceRecord[] = [];
  for await (const record of records) all.push(record);
  return all;
}

const comments = (records: SourceRecord[]) =>
  records.filter((r): r is { kind: "comment"; comment: SourceComment } => r.kind === "comment").map((r) => r.comment);

for (const [name, records, idOf] of [
  ["disqus (gzipped)", () => disqusRecords(plainBytes(chunked(gzipSync(disqusXml()), 64))), (id: string) => id],
  ["wordpress 1.0", () => wordpressRecords(chunked(wordpressWxr("1.0"))), (id: string) => id],
  ["wordpress 1.2", () => wordpressRecords(chunked(wordpressWxr("1.2"))), (id: string) => id],
  ["remark42", () => remark42Records(chunked(remark42Backup())), (id: string) => `r-${id}`],
] as const) {
  test(`${name}: the story's comments, parents, times and skips`, async () => {
    const read_ = comments(await read(records()));
    const relevant = read_.filter((c) => c.skip !== "pingback");
    assert.equal(relevant.length, STORY.length);
    for (const story of STORY) {
      const c = relevant.find((x) => x.id === idOf(story.id))!;
      assert.ok(c, story.id);
      assert.equal(c.parentId, story.parent ? idOf(story.parent) : null);
      assert.equal(c.createdAt, Date.parse(story.time));
      assert.equal(c.authorName, story.author);
      assert.doesNotMatch(c.authorKey, /@/, "no email in an author key");
      if (!name.startsWith("remark42")) assert.equal(c.skip, story.skip ?? null);
      else assert.equal(c.skip, story.skip ? "deleted" : null);
    }
  });
}

test("commento: names come from the commenters listed after the comments", async () => {
  const records = await read(commentoRecords(chunked(commentoJson(), 5)));
  const authors = records.filter((r) => r.kind === "author");
  assert.equal(authors.length, 6);
  const read_ = comments(records);
  assert.equal(read_.length, STORY.length);
  assert.deepEqual(
    read_.map((c) => c.skip),
    STORY.map((c) => c.skip ?? null),
  );
});

test("Matrix HTML: scripts, handlers and unsafe links go; text stays", () => {
  const message = htmlMessage(STORY[0]!.html);
  assert.equal(message.body, "Hello world! See this link and that.");
  assert.equal(
    message.formatted_body,
    '<p>Hello <b>world</b>! See <a href="https://example.org/x">this link</a> and <a>that</a>.</p>',
  );
  assert.deepEqual(htmlMessage("<p>just text &amp; more</p>"), { body: "just text & more" });
  assert.equal(htmlMessage('<img src="https://x.example/a.png">').body, "");
});

test("page slugs: the URL's path by default, --map rules first", () => {
  const page = { key: "1", url: "https://blog.example/posts/Hello-World/", identifier: "42", title: null };
  assert.equal(pageSlugOf(page, []), "posts-hello-world");
  assert.equal(pageSlugOf(page, [parseMapRule("^https://blog\\.example/posts/([^/]+)/$=>$1")]), "hello-world");
  assert.equal(pageSlugOf({ ...page, url: "https://blog.example/" }, []), "index");
  assert.equal(pageSlugOf({ ...page, url: null, identifier: "my-page" }, []), "my-page");
  assert.equal(slugOf("Über uns"), "uber-uns");
  assert.equal(slugOf("x".repeat(100))!.length, 64);
  assert.throws(() => parseMapRule("no arrow"), /REGEX=>REPLACEMENT/);
});

test("malformed: a record cut short, a long line, an entity reference without a DOCTYPE", async () => {
  await assert.rejects(read(disqusRecords(chunked('<disqus>\n<post dsq:id="1">\n<message>'))), ImportFileError);
  await assert.rejects(read(disqusRecords(chunked("<disqus>\n<post>&lol;</post></disqus>"))), /line 2/);
  await assert.rejects(
    read(remark42Records(chunked(`{"version":1}\n{"id":"${"x".repeat(9 * 1024 * 1024)}"}\n`, 1 << 20))),
    /line 2: the line is longer/,
  );
});

test("a file of another format is refused as not the format --from names, not read as an empty one", async () => {
  const readers = {
    disqus: disqusRecords,
    wordpress: wordpressRecords,
    remark42: remark42Records,
    commento: commentoRecords,
    jsonl: serviceJsonlRecords,
  };
  const files = {
    disqus: disqusXml(),
    wordpress: wordpressWxr("1.2"),
    remark42: remark42Backup(),
    commento: commentoJson(),
    jsonl: `${JSON.stringify({ type: "site", site_id: "s", format: "matrix-comment-service/1" })}\n`,
  };
  for (const [from, reader] of Object.entries(readers))
    for (const [format, file] of Object.entries(files)) {
      if (format === from) {
        await read(reader(chunked(file)));
        continue;
      }
      await assert.rejects(
        read(reader(chunked(file))),
        (err: unknown) => err instanceof FormatMismatchError && /^line \d+: the file is not /.test(err.message),
        `${format} read as ${from}`,
      );
    }
  await assert.rejects(
    read(disqusRecords(chunked(wordpressWxr("1.2")))),
    /the file is not a Disqus export: its root element is <rss>, not <disqus>/,
  );
});

test("WordPress paragraphs: blank lines make paragraphs; HTML that is already a block is kept", () => {
  assert.equal(paragraphs("a\nb\n\nc"), "<p>a<br>b</p><p>c</p>");
  assert.equal(paragraphs("<p>x</p>"), "<p>x</p>");
  assert.equal(htmlMessage(paragraphs("<p>x <b>y</b></p>")).formatted_body, "<p>x <b>y</b></p>");
});
