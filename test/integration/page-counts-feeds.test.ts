// Page counts and Atom feeds on SQLite and PostgreSQL against the real test Synapse: counts in
// the order asked with unknown pages at 0, the 200-page cap, the cached read dropped by a new
// comment; feeds parsed by a real XML parser and checked against the Atom rules, hostile text
// escaped, conditional GETs answered 304, a deleted comment gone from the feed.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { eventually, PROVIDERS, serviceFor, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments, whenListed } from "../support/reads.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { expectProblem } from "../support/problems.ts";

const HOSTILE = `<script>alert("x")</script> & ]]> 'quoted' \u{1F600}`;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  isArray: (name) => name === "entry",
});

/** The Atom rules (RFC 4287 §4.1) this service's feeds must keep. */
function checkAtom(xml: string) {
  assert.equal(XMLValidator.validate(xml), true, "well-formed XML");
  const { feed } = parser.parse(xml);
  assert.equal(feed["@xmlns"], "http://www.w3.org/2005/Atom");
  for (const field of ["id", "title", "updated"]) assert.ok(feed[field], `feed ${field}`);
  assert.ok(!Number.isNaN(Date.parse(feed.updated)), "feed updated is a date");
  const entries: any[] = feed.entry ?? [];
  for (const entry of entries) {
    for (const field of ["id", "title", "updated"]) assert.ok(entry[field] !== undefined, `entry ${field}`);
    assert.ok(entry.author?.name !== undefined, "entry author name (the feed has no author)");
    assert.ok(!Number.isNaN(Date.parse(entry.updated)), "entry updated is a date");
  }
  return { feed, entries };
}

for (const provider of PROVIDERS) {
  describe(`page counts and feeds on ${provider}`, () => {
    const siteId = uniqueSiteId("around");
    const running = serviceFor(provider, {
      sites: { [siteId]: { origins: [TEST_ORIGIN], page_url_pattern: "https://blog.example/posts/{page_slug}" } },
    });
    const counts = async (pages: unknown) =>
      fetch(`${running.service.url}/api/v1/sites/${siteId}/page-counts`, {
        method: "QUERY",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ pages }),
      });
    const post = async (visitor: Visitor, page: string, text: string, key: string) => {
      const res = await visitor.post(
        `/api/v1/sites/${siteId}/pages/${page}/comments`,
        await visitor.commentBody(siteId, page, text, { display_name: "Ada" }),
        { "idempotency-key": key },
      );
      return whenListed(res, async () => (await listComments(running.service, siteId, page)).data);
    };

    test("counts: order asked, unknown pages 0, cap 200, unknown site 404, cache dropped by a new comment", async () => {
      const visitor = new Visitor(running.service.url, TEST_ORIGIN);
      await post(visitor, "one", "first", "c1");
      await post(visitor, "one", "second", "c2");
      const asked = ["nothing-here", "one", "nothing-here"];
      let res = await counts(asked);
      assert.equal(res.status, 200);
      const body = (await res.json()) as any;
      assert.deepEqual(
        body.data.map((c: any) => [c.page_slug, c.comment_count]),
        [
          ["nothing-here", 0],
          ["one", 2],
          ["nothing-here", 0],
        ],
      );
      assert.equal(body.data[0].last_comment_at, null);
      assert.ok(Date.parse(body.data[1].last_comment_at) > 0);
      // Cached now: a new comment on another page of the site drops it.
      const before = (await (await counts(["two", "one"])).json()) as any;
      assert.equal(before.data[0].comment_count, 0);
      await post(visitor, "two", "on two", "c3");
      await eventually(
        async () => ((await (await counts(["two", "one"])).json()) as any).data[0].comment_count === 1,
        3_000,
        "the cached counts to be dropped",
      );
      await expectProblem(await counts(Array.from({ length: 201 }, (_, i) => `p${i}`)), 400, "validation-error");
      await expectProblem(await counts(["Not A Slug"]), 400, "validation-error");
      res = await counts(Array.from({ length: 200 }, (_, i) => `p${i}`));
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as any).data.length, 200);
      const unknown = await fetch(`${running.service.url}/api/v1/sites/${uniqueSiteId()}/page-counts`, {
        method: "QUERY",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ pages: ["x"] }),
      });
      await expectProblem(unknown, 404, "site-not-found");
    });

    test("feeds: valid Atom, escaped text, links with anchors, conditional GETs, a deleted comment leaves", async () => {
      const visitor = new Visitor(running.service.url, TEST_ORIGIN);
      const page = "feed-page";
      const hostile = await post(visitor, page, HOSTILE, "f1");
      const plain = await post(visitor, page, "plain words", "f2");
      const url = `${running.service.url}/api/v1/sites/${siteId}/pages/${page}/feed.atom`;
      let res = await fetch(url);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, /^application\/atom\+xml/);
      const xml = await res.text();
      const { entries } = checkAtom(xml);
      assert.equal(entries.length, 2);
      // Newest first.
      assert.equal(entries[0].content["#text"], "plain words");
      assert.ok(!xml.includes("<script>"), "markup in comments is escaped");
      assert.equal(entries[1].content["#text"], HOSTILE);
      assert.equal(entries[1].author.name, "Ada");
      assert.equal(
        entries[1].link["@href"],
        `https://blog.example/posts/${page}#comment-${encodeURIComponent(hostile.event_id)}`,
      );
      const etag = res.headers.get("etag")!;
      const lastModified = res.headers.get("last-modified")!;
      assert.ok(etag && lastModified);
      res = await fetch(url, { headers: { "if-none-match": etag } });
      assert.equal(res.status, 304);
      assert.equal(await res.text(), "");
      res = await fetch(url, { headers: { "if-modified-since": lastModified } });
      assert.equal(res.status, 304);
      res = await fetch(url, { headers: { "if-none-match": '"other"' } });
      assert.equal(res.status, 200);
      // The site's feed has them too.
      const site = checkAtom(await (await fetch(`${running.service.url}/api/v1/sites/${siteId}/feed.atom`)).text());
      assert.ok(site.entries.some((e) => String(e.content["#text"]) === "plain words"));

      // Deleted: the entry leaves, and the old validators no longer match.
      const proof = await visitor.proof((ch) => signatureArrays.deleteComment(siteId, page, plain.event_id, ch));
      const deleted = await visitor.send(
        "DELETE",
        `/api/v1/sites/${siteId}/pages/${page}/comments/${encodeURIComponent(plain.event_id)}`,
        proof,
        { "idempotency-key": "f3" },
      );
      assert.equal(deleted.status, 202);
      const after = await eventually(
        async () => {
          const r = await fetch(url, { headers: { "if-none-match": etag } });
          return r.status === 200 ? r.text() : null;
        },
        30_000,
        "the feed to change",
      );
      const left = checkAtom(after).entries;
      assert.deepEqual(
        left.map((e) => e.id),
        [entries[1].id],
      );
      const feed = (path: string) => fetch(`${running.service.url}/api/v1/sites/${path}`);
      const unknown = uniqueSiteId();
      for (const path of [`${unknown}/feed.atom`, `${unknown}/pages/${page}/feed.atom`])
        await expectProblem(await feed(path), 404, "site-not-found", path);
      for (const [path, field] of [
        ["Not_A_Site/feed.atom", "site_id"],
        [`Not_A_Site/pages/${page}/feed.atom`, "site_id"],
        [`${siteId}/pages/Not_A_Page/feed.atom`, "page_slug"],
      ]) {
        const problem = await expectProblem(await feed(path!), 400, "validation-error", path);
        assert.deepEqual(
          problem.errors.map((e: { field: string }) => e.field),
          [field],
          path,
        );
      }
    });
  });
}
