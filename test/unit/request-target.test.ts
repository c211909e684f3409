import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { badlyEncodedPart } from "../../src/rest/request-target.ts";

describe("badlyEncodedPart", () => {
  test("valid targets pass", () => {
    for (const target of [
      "/",
      "/api/v1/sites/a/pages/b/sse",
      "/x/%24abc%3Alocalhost",
      "/x/%F0%9F%98%80",
      "/x?a=1&b=%C3%A9+c&flag&=&",
    ]) {
      assert.equal(badlyEncodedPart(target), null, target);
    }
  });

  test("bad escapes, non-UTF-8 bytes and encoded surrogates in the path", () => {
    for (const target of ["/x/%ZZ", "/x/%E", "/x/%", "/x/%C3", "/x/%FF", "/x/%ED%A0%80"]) {
      assert.deepEqual(
        badlyEncodedPart(target),
        { field: "(path)", message: "is not valid percent-encoded UTF-8" },
        target,
      );
    }
  });

  test("bad query components name the parameter when its name decodes", () => {
    assert.equal(badlyEncodedPart("/x?mime=%ED%A0%80")?.field, "mime");
    assert.equal(badlyEncodedPart("/x?a=1&b=%ZZ")?.field, "b");
    assert.equal(badlyEncodedPart("/x?%FF=1")?.field, "(query)");
    assert.equal(badlyEncodedPart("/x?a=b=%E0")?.field, "a");
  });
});
