// On real SQLite and PostgreSQL against the real Synapse: a comment's HTML (formatted_body) sent
// beside its signed text, validated, carried to Matrix and back through the projection, edits
// included; and the "top" order of the comment QUERY (most reactions first, from the maintained
// reaction count through its index), page by page, as reactions come and go.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, PROVIDERS, serviceFor, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { getEvent } from "../support/matrix.ts";
import { PROOF_KEY } from "../../src/matrix/events.ts";
import { CommentsClient, Identity, memoryKeyStore, signatureArrays, type Message } from "../../src/client/index.ts";

const fromSite: typeof fetch = (input, init) =>
  fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: TEST_ORIGIN } });

for (const provider of PROVIDERS) {
  describe(`formatted comments and the top order on ${provider}`, () => {
    const site = uniqueSiteId("fmt");
    const running = serviceFor(provider, { sites: { [site]: { origins: [TEST_ORIGIN] } } });
    let service: TestService;
    const visitor = async () =>
      new CommentsClient({
        baseUrl: service.url,
        site,
        identity: await Identity.load(site, memoryKeyStore()),
        fetch: fromSite,
      });
    const listed = async (client: CommentsClient, page: string, submissionId: string) =>
      eventually(
        async () =>
          (await client.listComments(page, { per_page: 100 }, { personalized: false })).data.find(
            (m) => m.submission_id === submissionId,
          ),
        30_000,
        "the comment listed",
      );

    before(() => {
      service = running.service;
    });

    test("Markdown goes as the signed body plus an org.matrix.custom.html formatted_body, to Matrix and back; edits too", async () => {
      const client = await visitor();
      const text = "Some **bold** and a [link](https://example.org)";
      const { submission_id } = await client.postComment("notes", { content: text, markdown: true });
      const comment = await listed(client, "notes", submission_id);
      assert.deepEqual(comment.content, {
        type: "text",
        body: text,
        format: "org.matrix.custom.html",
        formatted_body: '<p>Some <strong>bold</strong> and a <a href="https://example.org">link</a></p>',
      });
      const event = await getEvent(comment.room_id, comment.event_id);
      assert.equal(event.content.formatted_body, (comment.content as { formatted_body: string }).formatted_body);
      assert.equal(event.content[PROOF_KEY].content, text, "what is signed is the text");

      const plain = await client.postComment("notes", { content: "No formatting here", markdown: true });
      assert.deepEqual((await listed(client, "notes", plain.submission_id)).content, {
        type: "text",
        body: "No formatting here",
        format: null,
        formatted_body: null,
      });

      await client.editComment("notes", comment.event_id, "Now _slanted_", { markdown: true });
      const edited = await eventually(
        async () => {
          const found = (await client.listComments("notes", {}, { personalized: false })).data.find(
            (m) => m.event_id === comment.event_id,
          )!;
          return found.status === "edited" && found;
        },
        30_000,
        "the edit",
      );
      assert.deepEqual(edited.content, {
        type: "text",
        body: "Now _slanted_",
        format: "org.matrix.custom.html",
        formatted_body: "<p>Now <em>slanted</em></p>",
      });
    });

    test("a formatted_body without its format, a format without it, another format or HTML with media is a 400", async () => {
      const client = await visitor();
      const path = `${service.url}/api/v1/sites/${site}/pages/notes/comments`;
      const attempt = async (extra: Record<string, unknown>, content = "Text") => {
        const proof = await client.proof((ch) => signatureArrays.postComment(site, "notes", content, null, null, ch));
        const res = await fromSite(path, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
          body: JSON.stringify({ content, ...extra, ...proof }),
        });
        const problem = (await res.json()) as { code: string; errors?: Array<{ field: string }> };
        return [res.status, problem.code, problem.errors?.map((e) => e.field)];
      };
      assert.deepEqual(await attempt({ formatted_body: "<b>x</b>" }), [400, "validation-error", ["format"]]);
      assert.deepEqual(await attempt({ format: "org.matrix.custom.html" }), [
        400,
        "validation-error",
        ["formatted_body"],
      ]);
      assert.deepEqual(await attempt({ format: "text/markdown", formatted_body: "*x*" }), [
        400,
        "validation-error",
        ["format"],
      ]);
      assert.deepEqual(await attempt({ format: "org.matrix.custom.html", formatted_body: "<b>\u0007</b>" }), [
        400,
        "validation-error",
        ["formatted_body"],
      ]);
      assert.deepEqual(
        await attempt({ format: "org.matrix.custom.html", formatted_body: `<p>${"x".repeat(70_000)}</p>` }),
        [400, "validation-error", ["content"]],
        "the homeserver's event size",
      );
    });

    test("order top: the most reactions first (ties oldest first), paginated, following reactions as they change", async () => {
      const author = await visitor();
      const posted: Message[] = [];
      for (const text of ["one", "two", "three", "four"]) {
        const { submission_id } = await author.postComment("ranked", { content: text });
        posted.push(await listed(author, "ranked", submission_id));
      }
      const [one, two, three, four] = posted as [Message, Message, Message, Message];
      const reactors = await Promise.all([visitor(), visitor()]);
      await reactors[0]!.react("ranked", three.event_id, "👍");
      await reactors[1]!.react("ranked", three.event_id, "🎉");
      await reactors[0]!.react("ranked", four.event_id, "👍");
      await reactors[1]!.react("ranked", one.event_id, "👍");
      const top = async (page: number, perPage: number) => {
        const result = await author.listComments("ranked", { order: "top", page, per_page: perPage });
        return { bodies: result.data.map((m) => (m.content as { body: string }).body), meta: result.meta };
      };
      await eventually(
        async () => (await top(1, 4)).bodies.join() === "three,one,four,two",
        30_000,
        "the reactions counted",
      );
      assert.deepEqual(await top(1, 3), {
        bodies: ["three", "one", "four"],
        meta: { total: 4, page: 1, per_page: 3, total_pages: 2 },
      });
      assert.deepEqual((await top(2, 3)).bodies, ["two"]);
      assert.deepEqual((await top(3, 3)).bodies, []);
      const personal = (await reactors[1]!.listComments("ranked", { order: "top" })).data[0]!;
      assert.deepEqual(
        personal.reactions.map((r) => [r.key, r.count, r.mine]),
        [
          ["👍", 1, false],
          ["🎉", 1, true],
        ],
        "a personalized top read",
      );

      await reactors[1]!.unreact("ranked", one.event_id, "👍");
      await reactors[0]!.react("ranked", two.event_id, "😂");
      await reactors[1]!.react("ranked", two.event_id, "😂");
      // two (😂 ×2) ties three (👍, 🎉) and, older, goes first; one has none left. (Between the
      // two 😂, the order is three, two, four, one: the final order, not that one, is awaited.)
      await eventually(
        async () => (await top(1, 4)).bodies.join() === "two,three,four,one",
        30_000,
        "the order follows the reactions",
      );
      const reactions = (await author.listComments("ranked", { order: "top" })).data.map((m) =>
        m.reactions.map((r) => `${r.key}${r.count}`).join(" "),
      );
      assert.deepEqual(reactions, ["😂2", "👍1 🎉1", "👍1", ""]);
    });
  });
}
