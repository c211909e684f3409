import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { PROOF_KEY, relatesTo, submissionTxnId } from "../../src/matrix/events.ts";
import { textMessageContent } from "../../src/features/comments/operations/post-comment.ts";
import { editContent } from "../../src/features/comments/operations/edit-comment.ts";
import { reactionContent } from "../../src/features/comments/operations/react.ts";
import { pollStartContent } from "../../src/features/comments/operations/create-poll.ts";
import { pollResponseContent } from "../../src/features/comments/operations/vote.ts";
import { locationContent } from "../../src/features/comments/operations/post-location.ts";
import { relationsOf } from "../../src/projection/message-content.ts";
import type { ProofBlock } from "../../src/matrix/events.ts";

const proof: ProofBlock = {
  public_key: "pk",
  signature: "sig",
  challenge: "ch",
  content: "Hello",
  submission_id: "sub-1",
};

const comment = (replyTo: string | null, threadRoot: string | null) =>
  textMessageContent("Hello", null, replyTo, threadRoot, proof);

describe("textMessageContent", () => {
  test("a top-level comment is a plain m.text with the proof block and no relation", () => {
    assert.deepEqual(comment(null, null), {
      msgtype: "m.text",
      body: "Hello",
      "service.proof": proof,
    });
  });

  test("the proof key", () => {
    assert.equal(PROOF_KEY, "service.proof");
  });

  test("a reply carries m.in_reply_to", () => {
    assert.deepEqual(comment("$parent:localhost", null)["m.relates_to"], {
      "m.in_reply_to": { event_id: "$parent:localhost" },
    });
  });

  test("a thread message uses rel_type m.thread with a reply fallback to the root", () => {
    assert.deepEqual(comment(null, "$root:localhost")["m.relates_to"], {
      rel_type: "m.thread",
      event_id: "$root:localhost",
      is_falling_back: true,
      "m.in_reply_to": { event_id: "$root:localhost" },
    });
  });

  test("a reply inside a thread is a real (non-fallback) reply", () => {
    assert.deepEqual(comment("$parent:localhost", "$root:localhost")["m.relates_to"], {
      rel_type: "m.thread",
      event_id: "$root:localhost",
      is_falling_back: false,
      "m.in_reply_to": { event_id: "$parent:localhost" },
    });
  });
});

describe("relationsOf inverts relatesTo", () => {
  const combos: Array<[string | null, string | null]> = [
    [null, null],
    ["$parent:localhost", null],
    [null, "$root:localhost"],
    ["$parent:localhost", "$root:localhost"],
    ["$root:localhost", "$root:localhost"],
  ];
  for (const [replyTo, threadRoot] of combos) {
    test(`reply_to=${replyTo} thread_root=${threadRoot}`, () => {
      const content = comment(replyTo, threadRoot);
      assert.deepEqual(relationsOf(content), { replyTo, threadRoot, replaces: null });
    });
  }

  test("relatesTo returns null with no relation", () => {
    assert.equal(relatesTo(null, null), null);
  });
});

describe("the other visitor events", () => {
  test("an edit replaces the target with m.new_content and a '* ' fallback", () => {
    assert.deepEqual(editContent("$c", "new", null, proof), {
      msgtype: "m.text",
      body: "* new",
      "m.new_content": { msgtype: "m.text", body: "new" },
      "m.relates_to": { rel_type: "m.replace", event_id: "$c" },
      [PROOF_KEY]: proof,
    });
  });
  test("a reaction is an m.annotation with the key", () => {
    assert.deepEqual(reactionContent("$c", "👍", proof)["m.relates_to"], {
      rel_type: "m.annotation",
      event_id: "$c",
      key: "👍",
    });
  });
  test("a poll start numbers its answers from 0 and falls back to question plus numbered options", () => {
    const content = pollStartContent("Tea?", ["Yes", "No"], 1, null, "$root", proof);
    assert.equal(content.msgtype, "org.matrix.msc3381.poll.start");
    assert.equal(content.body, "Tea?\n1. Yes\n2. No");
    const poll = content["org.matrix.msc3381.poll.start"] as any;
    assert.deepEqual(poll.answers, [
      { id: "0", "org.matrix.msc1767.text": "Yes" },
      { id: "1", "org.matrix.msc1767.text": "No" },
    ]);
    assert.equal(poll.max_selections, 1);
    assert.deepEqual(relationsOf(content), { replyTo: null, threadRoot: "$root", replaces: null });
  });
  test("a vote references the poll in the stable and the unstable shape", () => {
    const content = pollResponseContent("$poll", "1", proof);
    assert.deepEqual(content["m.relates_to"], { rel_type: "m.reference", event_id: "$poll" });
    assert.deepEqual(content["m.selections"], ["1"]);
    assert.deepEqual(content["org.matrix.msc3381.poll.response"], { answers: ["1"] });
  });
  test("a location carries geo_uri and the MSC3488 block; body falls back to the URI", () => {
    const content = locationContent("geo:1,2", null, null, null, proof);
    assert.equal(content.msgtype, "m.location");
    assert.equal(content.geo_uri, "geo:1,2");
    assert.equal(content.body, "Location: geo:1,2");
    assert.deepEqual(content["m.location"], { uri: "geo:1,2" });
  });
});

test("submission transaction ids are stable per submission", () => {
  assert.equal(submissionTxnId("abc"), "submission.abc");
  assert.equal(submissionTxnId("abc"), submissionTxnId("abc"));
  assert.notEqual(submissionTxnId("abc"), submissionTxnId("abd"));
});
