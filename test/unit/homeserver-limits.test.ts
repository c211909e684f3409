// What the homeserver would refuse after a 202 is refused before it.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FieldError } from "../../src/core/errors.ts";
import { DomainError } from "../../src/core/errors.ts";
import { checkDisplayName } from "../../src/features/comments/comment-input.ts";
import { canonicalJsonProblem } from "../../src/matrix/canonical-json.ts";
import { MAX_EVENT_JSON_DEPTH } from "../../src/config/limits.ts";
import { checkSendable } from "../../src/writes/event-size.ts";

const FAMILY = "👨‍👩‍👧‍👦"; // 1 grapheme cluster, 7 code points

const displayNameErrors = (value: string): FieldError[] => {
  const errors: FieldError[] = [];
  checkDisplayName(value, errors);
  return errors;
};

test("a display name within 50 grapheme clusters but over the homeserver's 256 code points is refused", () => {
  const errors = displayNameErrors(FAMILY.repeat(40));
  assert.deepEqual(
    errors.map((e) => e.field),
    ["display_name"],
  );
  assert.match(errors[0]!.message, /256 Unicode code points/);
  assert.deepEqual(displayNameErrors(FAMILY.repeat(36)), [], "252 code points fit");
  assert.deepEqual(displayNameErrors("é".repeat(50)), []);
});

test("canonical JSON: floats, integers beyond ±(2^53−1) and deep nesting are named by path", () => {
  assert.equal(
    canonicalJsonProblem({ w: 64, h: -64, size: Number.MAX_SAFE_INTEGER, tags: ["a", { b: null, c: true }] }, "info"),
    null,
  );
  assert.equal(canonicalJsonProblem({ w: 1.5 }, "info")?.field, "info.w");
  assert.equal(canonicalJsonProblem({ thumbnail_info: { size: 2 ** 53 } }, "info")?.field, "info.thumbnail_info.size");
  assert.equal(canonicalJsonProblem({ list: [1, -9007199254740993] }, "info")?.field, "info.list.1");
  assert.equal(canonicalJsonProblem({ big: 1e308 }, "info")?.field, "info.big");
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.match(
    canonicalJsonProblem(deep, "content")!.message,
    new RegExp(`deeper than ${MAX_EVENT_JSON_DEPTH}`),
    "checked without recursion",
  );
});

test("checkSendable refuses content a homeserver would refuse, with a 400 naming the field", () => {
  const send = (content: Record<string, unknown>) => () =>
    checkSendable({ action: "send", roomId: "!r:x", type: "m.sticker", content });
  assert.doesNotThrow(send({ body: "hi", info: { w: 1 } }));
  assert.throws(
    send({ body: "hi", info: { w: 0.5 } }),
    (err: unknown) =>
      err instanceof DomainError && err.status === 400 && err.extra.errors?.[0]?.field === "content.info.w",
  );
  assert.throws(send({ body: "x".repeat(70_000) }), (err: unknown) => err instanceof DomainError && err.status === 400);
});
