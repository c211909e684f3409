import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { DomainError } from "../../src/core/errors.ts";
import { findUnacceptable, parseJsonBody } from "../../src/rest/json-body.ts";
import { MAX_REQUEST_JSON_DEPTH } from "../../src/config/limits.ts";

const refusal = (raw: string | Buffer) => {
  try {
    parseJsonBody(Buffer.from(raw));
  } catch (err) {
    assert.ok(err instanceof DomainError);
    assert.equal(err.code, "validation-error");
    assert.equal(err.status, 400);
    return err;
  }
  assert.fail(`accepted ${raw}`);
};

describe("parseJsonBody", () => {
  test("ordinary JSON, including paired surrogates, is accepted", () => {
    assert.deepEqual(parseJsonBody(Buffer.from('{"a": ["\\ud83d\\ude00", 1.5, null, {"b": true}]}')), {
      a: ["😀", 1.5, null, { b: true }],
    });
  });

  test("an unpaired surrogate is refused, naming the field", () => {
    assert.deepEqual(refusal('{"content": "x\\ud800"}').extra.errors, [
      { field: "content", message: "is not well-formed Unicode (unpaired surrogate)" },
    ]);
    assert.equal(refusal('{"media": {"url": "\\udfff"}}').extra.errors![0]!.field, "media.url");
    assert.equal(refusal('{"options": ["ok", "\\ud800\\ud800"]}').extra.errors![0]!.field, "options.1");
    assert.equal(refusal('"\\ud800"').extra.errors![0]!.field, "(body)");
  });

  test("an unpaired surrogate in a member name is refused", () => {
    const [error] = refusal('{"a": {"\\ud800x": 1}}').extra.errors!;
    assert.equal(error!.field, "a.\ufffdx");
    assert.match(error!.message, /name/);
  });

  test("the first offending field in document order is named", () => {
    assert.equal(refusal('{"a": "\\ud800", "b": "\\udc00"}').extra.errors![0]!.field, "a");
  });

  test("numbers that do not fit a double are refused", () => {
    assert.deepEqual(refusal('{"page": 1e400}').extra.errors, [{ field: "page", message: "is out of range" }]);
    assert.equal(refusal('{"x": [-1e999]}').extra.errors![0]!.field, "x.0");
  });

  test("nesting is bounded, however deep the document", () => {
    assert.doesNotThrow(() =>
      parseJsonBody(Buffer.from("[".repeat(MAX_REQUEST_JSON_DEPTH) + "]".repeat(MAX_REQUEST_JSON_DEPTH))),
    );
    assert.match(
      refusal("[".repeat(MAX_REQUEST_JSON_DEPTH + 1) + "]".repeat(MAX_REQUEST_JSON_DEPTH + 1)).extra.errors![0]!
        .message,
      /deeper/,
    );
    refusal('{"a":' + "[".repeat(100_000) + "]".repeat(100_000) + "}");
  });

  test("bytes that are not UTF-8, and text that is not JSON, are refused", () => {
    assert.match(refusal(Buffer.from([0x7b, 0xff, 0x7d])).message, /UTF-8/);
    assert.match(refusal("{").message, /not valid JSON/);
  });

  test("findUnacceptable accepts plain values", () => {
    for (const value of [null, 0, "", [], {}, { a: [1, "b"] }]) assert.equal(findUnacceptable(value), null);
  });
});
