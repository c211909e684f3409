// The SDK in Node against the real service and Synapse: reads, every write kind, media and
// avatars, an identity kept in a file, and live events resumed with Last-Event-ID.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { eventually, startTestService, uniqueSiteId, TEST_ORIGIN, type TestService } from "../support/harness.ts";
import { png } from "../support/media-fixtures.ts";
import { CommentList, CommentsClient, fileKeyStore, type LiveEvent } from "../../src/client/index.ts";

const site = uniqueSiteId("sdk");
const page = "notes";
let service: TestService;
let client: CommentsClient;

describe("the SDK against the service", () => {
  before(async () => {
    service = await startTestService({ sites: { [site]: { origins: [TEST_ORIGIN] } } });
    // Node sends no Origin by itself; the site's writes need one, as a browser on the site sends.
    const fromSite: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: TEST_ORIGIN } });
    const keys = join(mkdtempSync(join(tmpdir(), "sdk-keys-")), "keys.json");
    client = await CommentsClient.connect({
      baseUrl: service.url,
      site,
      keyStore: fileKeyStore(keys),
      fetch: fromSite,
    });
    const again = await CommentsClient.connect({ baseUrl: service.url, site, keyStore: fileKeyStore(keys) });
    assert.equal(again.identity.publicKey, client.identity.publicKey, "the identity is kept in the file");
  });

  after(() => service?.stop());

  test("writes of every kind show up in the list, merged with live events; personalization sets mine", async () => {
    const list = new CommentList(client, page);
    await list.start();
    try {
      const { submission_id } = await client.postComment(page, { content: "First", displayName: "Node" });
      const first = await eventually(
        async () => list.all().find((m) => m.submission_id === submission_id),
        20_000,
        "the comment, live",
      );
      await client.postComment(page, { content: "Second", replyTo: first.event_id, threadRoot: first.event_id });
      await client.createPoll(page, { question: "Which?", options: ["A", "B"] });
      await client.postLocation(page, { geoUri: "geo:48.85,2.35", description: "Paris", displayName: "Node" });
      await client.postMedia(page, new Uint8Array(png(20, 10)), {
        mime: "image/png",
        filename: "dot.png",
        caption: "A dot",
      });
      await eventually(async () => list.all().length === 5, 20_000, "five comments, live");
      const poll = list.all().find((m) => m.content.type === "poll")!;
      await client.vote(page, poll.event_id, "1");
      await client.react(page, first.event_id, "👍");
      list.setMine(first.event_id, "👍", true);
      await eventually(
        async () =>
          list.get(poll.event_id)!.content.type === "poll" &&
          (list.get(poll.event_id)!.content as { responses: { option_index: number; count: number }[] }).responses.some(
            (r) => r.option_index === 1 && r.count === 1,
          ),
        20_000,
        "the vote, live",
      );
      await eventually(
        async () => list.get(first.event_id)!.reactions.find((r) => r.key === "👍" && r.count === 1 && r.mine),
        20_000,
        "the reaction, live",
      );

      // The list showed the reaction at once (setMine); the read model has it a moment later.
      const personal = await eventually(
        async () => {
          const reactions = (await client.listComments(page)).data.find(
            (m) => m.event_id === first.event_id,
          )!.reactions;
          return reactions.length > 0 && reactions;
        },
        20_000,
        "the reaction in the read model",
      );
      assert.deepEqual(personal, [{ key: "👍", count: 1, mine: true }]);
      const anonymous = await client.listComments(page, {}, { personalized: false });
      assert.deepEqual(anonymous.data.find((m) => m.event_id === first.event_id)!.reactions, [
        { key: "👍", count: 1, mine: false },
      ]);
      assert.deepEqual(
        (await client.listComments(page, { order: "desc", per_page: 1 })).data.map((m) => m.content.type),
        ["media"],
      );
      assert.deepEqual(
        list
          .tree()
          .find((n) => n.message.event_id === first.event_id)!
          .children.map((c) => c.message.content.type === "text" && c.message.content.body),
        ["Second"],
      );

      await client.unreact(page, first.event_id, "👍");
      await client.editComment(page, first.event_id, "First, edited");
      await eventually(
        async () => list.get(first.event_id)!.status === "edited" && list.get(first.event_id)!.reactions.length === 0,
        20_000,
        "the edit and unreaction, live",
      );
      await client.deleteComment(page, first.event_id);
      await eventually(async () => list.get(first.event_id)!.status === "redacted", 20_000, "the delete, live");
    } finally {
      list.stop();
    }
  });

  test("reads: room, rosters, stickers, profiles; avatars set and removed", async () => {
    assert.equal(typeof (await client.room(page)).room_id, "string");
    assert.ok(Array.isArray((await client.pageRoles(page)).moderators));
    assert.ok(Array.isArray((await client.moderators(page)).moderators));
    assert.ok(Array.isArray((await client.siteRoles()).admins));
    assert.deepEqual(await client.stickers(), []);
    const { avatar_url } = await client.uploadAvatar(new Uint8Array(png(8, 8)), "image/png");
    assert.match(avatar_url, /^http/);
    const profile = await eventually(
      async () => ((await client.profile()).avatar_url ? client.profile() : null),
      20_000,
      "the avatar on the profile",
    );
    assert.equal(profile.display_name, "Node");
    await client.deleteAvatar();
    await eventually(async () => (await client.profile()).avatar_url === null, 20_000, "the avatar removed");
  });

  test("live events resume after Last-Event-ID: what was posted while away arrives first", async () => {
    const seen: Array<{ event: LiveEvent; id: string | null }> = [];
    const first = client.live(page, { onEvent: (event) => seen.push({ event, id: first.lastEventId }) });
    const { submission_id: whilePresent } = await client.postComment(page, { content: "While present" });
    await eventually(
      async () =>
        seen.some((s) => s.event.type === "message_created" && s.event.payload.submission_id === whilePresent),
      20_000,
      "the first stream's event",
    );
    const resumeFrom = first.lastEventId;
    first.close();
    assert.ok(resumeFrom);

    const { submission_id: whileAway } = await client.postComment(page, { content: "While away" });
    await eventually(
      async () =>
        (await client.listComments(page, { order: "desc", per_page: 1 })).data[0]?.submission_id === whileAway,
      20_000,
      "the comment projected",
    );
    const resumed: LiveEvent[] = [];
    const second = client.live(page, { onEvent: (event) => resumed.push(event) }, resumeFrom);
    try {
      await eventually(
        async () => resumed.some((e) => e.type === "message_created" && e.payload.submission_id === whileAway),
        20_000,
        "the missed event",
      );
      assert.ok(
        !resumed.some((e) => e.type === "message_created" && e.payload.submission_id === whilePresent),
        "nothing from before the resume point",
      );
    } finally {
      second.close();
    }
  });
});
