import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { PROOF_KEY, commentMessageContent, relatesTo, submissionTxnId } from "../../src/matrix/events.ts";
import { relationsOf } from "../../src/projection/message-content.ts";
import type { CommentPostPayload, ProofBlock } from "../../src/queue/payloads.ts";

const proof: ProofBlock = {
  public_key: "pk",
  signature: "sig",
  challenge: "ch",
  content: "Hello",
  submission_id: "sub-1",
};

const payload = (replyTo: string | null, threadRoot: string | null): CommentPostPayload => ({
  body: "Hello",
  replyTo,
  threadRoot,
  displayName: "Alice",
  proof,
});

describe("commentMessageContent", () => {
  test("a top-level comment is a plain m.text with the proof block and no relation", () => {
    assert.deepEqual(commentMessageContent(payload(null, null)), {
      msgtype: "m.text",
      body: "Hello",
      "service.proof": proof,
    });
  });

  test("the proof key", () => {
    assert.equal(PROOF_KEY, "service.proof");
  });

  test("a reply carries m.in_reply_to", () => {
    assert.deepEqual(commentMessageContent(payload("$parent:localhost", null))["m.relates_to"], {
      "m.in_reply_to": { event_id: "$parent:localhost" },
    });
  });

  test("a thread message uses rel_type m.thread with a reply fallback to the root", () => {
    assert.deepEqual(commentMessageContent(payload(null, "$root:localhost"))["m.relates_to"], {
      rel_type: "m.thread",
      event_id: "$root:localhost",
      is_falling_back: true,
      "m.in_reply_to": { event_id: "$root:localhost" },
    });
  });

  test("a reply inside a thread is a real (non-fallback) reply", () => {
    assert.deepEqual(commentMessageContent(payload("$parent:localhost", "$root:localhost"))["m.relates_to"], {
      rel_type: "m.thread",
      event_id: "$root:localhost",
      is_falling_back: false,
      "m.in_reply_to": { event_id: "$parent:localhost" },
    });
  });

  test("display_name is not part of the event content", () => {
    assert.equal(JSON.stringify(commentMessageContent(payload(null, null))).includes("Alice"), false);
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
      const content = commentMessageContent(payload(replyTo, threadRoot));
      assert.deepEqual(relationsOf(content), { replyTo, threadRoot, replaces: null });
    });
  }

  test("relatesTo returns null with no relation", () => {
    assert.equal(relatesTo(null, null), null);
  });
});

test("submission transaction ids are stable per submission", () => {
  assert.equal(submissionTxnId("abc"), "submission.abc");
  assert.equal(submissionTxnId("abc"), submissionTxnId("abc"));
  assert.notEqual(submissionTxnId("abc"), submissionTxnId("abd"));
});
