import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { checkCommentText, checkDisplayName, checkEventId } from "../../src/features/comments/comment-input.ts";
import type { FieldError } from "../../src/core/errors.ts";
import { MAX_COMMENT_GRAPHEMES, MAX_DISPLAY_NAME_GRAPHEMES } from "../../src/config/limits.ts";

const run = (check: (errors: FieldError[]) => void): FieldError[] => {
  const errors: FieldError[] = [];
  check(errors);
  return errors;
};
const fields = (errors: FieldError[]) => errors.map((e) => e.field);

const FAMILY = "👨‍👩‍👧‍👦"; // 1 grapheme, 11 UTF-16 units
const THUMB = "👍🏽"; // 1 grapheme, 4 UTF-16 units

describe("limits", () => {
  test("comment 10000, display name 50 grapheme clusters", () => {
    assert.equal(MAX_COMMENT_GRAPHEMES, 10_000);
    assert.equal(MAX_DISPLAY_NAME_GRAPHEMES, 50);
  });
});

describe("checkCommentText", () => {
  test("plain text passes", () => {
    assert.deepEqual(
      run((e) => checkCommentText("content", "Nice post!", e)),
      [],
    );
  });

  test("exactly 10000 grapheme clusters pass at 40000 UTF-16 units", () => {
    const text = THUMB.repeat(10_000);
    assert.equal(text.length, 40_000);
    assert.deepEqual(
      run((e) => checkCommentText("content", text, e)),
      [],
    );
  });

  test("10001 grapheme clusters fail", () => {
    const errors = run((e) => checkCommentText("content", THUMB.repeat(10_001), e));
    assert.deepEqual(fields(errors), ["content"]);
    assert.match(errors[0]!.message, /10000/);
  });

  test("ZWJ sequences count once each", () => {
    assert.deepEqual(
      run((e) => checkCommentText("content", FAMILY.repeat(1_000), e)),
      [],
    );
  });

  test("10000 two-unit emoji pass, 10001 fail", () => {
    assert.deepEqual(
      run((e) => checkCommentText("content", "👍".repeat(10_000), e)),
      [],
    );
    assert.deepEqual(fields(run((e) => checkCommentText("content", "👍".repeat(10_001), e))), ["content"]);
  });

  test("combining marks do not count as extra clusters", () => {
    assert.deepEqual(
      run((e) => checkCommentText("content", "e\u0301".repeat(10_000), e)),
      [],
    );
  });

  test("empty and whitespace-only text fail", () => {
    assert.deepEqual(fields(run((e) => checkCommentText("content", "", e))), ["content"]);
    assert.deepEqual(fields(run((e) => checkCommentText("content", " \n\t ", e))), ["content"]);
  });

  test("newline and tab are allowed", () => {
    assert.deepEqual(
      run((e) => checkCommentText("content", "line 1\nline 2\tcol", e)),
      [],
    );
  });

  test("other control characters fail", () => {
    for (const text of ["a\u0000b", "bell\u0007", "esc\u001b[0m", "del\u007f", "nel\u0085"]) {
      assert.deepEqual(fields(run((e) => checkCommentText("content", text, e))), ["content"], JSON.stringify(text));
    }
  });

  test("reports under the given field name", () => {
    assert.deepEqual(fields(run((e) => checkCommentText("description", "", e))), ["description"]);
  });

  test("appends to existing errors", () => {
    const errors: FieldError[] = [{ field: "other", message: "x" }];
    checkCommentText("content", "", errors);
    assert.deepEqual(fields(errors), ["other", "content"]);
  });
});

describe("checkDisplayName", () => {
  test("null (absent) passes", () => {
    assert.deepEqual(
      run((e) => checkDisplayName(null, e)),
      [],
    );
  });
  test("1 grapheme passes", () => {
    assert.deepEqual(
      run((e) => checkDisplayName("A", e)),
      [],
    );
    assert.deepEqual(
      run((e) => checkDisplayName(FAMILY, e)),
      [],
    );
  });
  test("50 grapheme clusters pass, 51 fail", () => {
    // Two code points per cluster: 50 of FAMILY would pass the cluster limit but not the homeserver's 256 code points.
    assert.deepEqual(
      run((e) => checkDisplayName("e\u0301".repeat(50), e)),
      [],
    );
    assert.deepEqual(fields(run((e) => checkDisplayName("e\u0301".repeat(51), e))), ["display_name"]);
    assert.deepEqual(
      run((e) => checkDisplayName("x".repeat(50), e)),
      [],
    );
    assert.deepEqual(fields(run((e) => checkDisplayName("x".repeat(51), e))), ["display_name"]);
  });
  test("empty fails", () => {
    assert.deepEqual(fields(run((e) => checkDisplayName("", e))), ["display_name"]);
  });
  test("leading or trailing whitespace fails", () => {
    assert.deepEqual(fields(run((e) => checkDisplayName(" Alice", e))), ["display_name"]);
    assert.deepEqual(fields(run((e) => checkDisplayName("Alice ", e))), ["display_name"]);
    assert.deepEqual(fields(run((e) => checkDisplayName("Alice\n", e))), ["display_name"]);
    assert.deepEqual(fields(run((e) => checkDisplayName(" ", e))), ["display_name"]);
  });
  test("inner spaces pass", () => {
    assert.deepEqual(
      run((e) => checkDisplayName("Alice B. Cooper", e)),
      [],
    );
  });
  test("control characters fail", () => {
    assert.deepEqual(fields(run((e) => checkDisplayName("Al\u0000ice", e))), ["display_name"]);
    assert.deepEqual(fields(run((e) => checkDisplayName("Al\tice", e))), ["display_name"]);
  });
});

describe("checkEventId", () => {
  test("null (absent relation) passes", () => {
    assert.deepEqual(
      run((e) => checkEventId("reply_to", null, e)),
      [],
    );
  });
  test("legacy and hash event ids pass", () => {
    assert.deepEqual(
      run((e) => checkEventId("reply_to", "$abc:localhost", e)),
      [],
    );
    assert.deepEqual(
      run((e) => checkEventId("reply_to", "$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg", e)),
      [],
    );
    assert.deepEqual(
      run((e) => checkEventId("reply_to", "$acR1l0raoZnm60CBwAVgqbZqoO/mYU81xysh1u7XcJk", e)),
      [],
    );
  });
  test("invalid ids fail under the given field", () => {
    assert.deepEqual(fields(run((e) => checkEventId("thread_root", "abc:localhost", e))), ["thread_root"]);
    assert.deepEqual(fields(run((e) => checkEventId("reply_to", "", e))), ["reply_to"]);
    assert.deepEqual(fields(run((e) => checkEventId("reply_to", "$a b", e))), ["reply_to"]);
  });
});

// An over-long comment must be rejected without segmenting all of it: V8's Intl.Segmenter
// iteration is superlinear in the string length (100k characters take seconds, 200k tens of
// seconds), and the HTTP layer accepts bodies up to 1 MiB, before any proof of work is checked.
// Runs in a worker so a slow implementation can be stopped after the deadline.
test("a 150000-character comment is rejected within 500 ms", {}, async () => {
  const code = `
      const { parentPort } = require("node:worker_threads");
      import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
        .then((api) => { api.register(); return import(${JSON.stringify(import.meta.resolve("../../src/features/comments/comment-input.ts"))}); })
        .then((m) => {
          parentPort.postMessage("ready");
          const errors = [];
          m.checkCommentText("content", "a".repeat(150000), errors);
          parentPort.postMessage(errors.map((e) => e.field));
        });`;
  const worker = new Worker(code, { eval: true });
  try {
    const outcome = await new Promise<unknown>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      worker.on("message", (message) => {
        if (message === "ready") timer = setTimeout(() => resolve("timed out"), 500);
        else {
          clearTimeout(timer);
          resolve(message);
        }
      });
      worker.on("error", reject);
    });
    assert.deepEqual(outcome, ["content"]);
  } finally {
    await worker.terminate();
  }
});
