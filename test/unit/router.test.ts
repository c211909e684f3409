import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { Router } from "../../src/rest/router.ts";
import type { Method, Route } from "../../src/rest/route.ts";

const route = (method: Method, path: string): Route =>
  ({ operationId: `${method} ${path}`, method, path }) as unknown as Route;

const COMMENT = "/api/v1/sites/{site_id}/pages/{page_slug}/comments/{comment_id}";
const routes = [
  route("GET", "/api/v1/challenge"),
  route("POST", "/api/v1/sites"),
  route("QUERY", "/api/v1/sites/{site_id}/pages/{page_slug}/comments"),
  route("POST", "/api/v1/sites/{site_id}/pages/{page_slug}/comments"),
  route("PATCH", COMMENT),
  route("DELETE", COMMENT),
  route("POST", `${COMMENT}/reactions`),
  route("DELETE", `${COMMENT}/reactions/{key}`),
];
const router = new Router(routes);

describe("Router.match", () => {
  test("a static route", () => {
    const m = router.match("GET", "/api/v1/challenge");
    assert.equal(m.kind, "route");
    assert.equal(m.kind === "route" && m.route.operationId, "GET /api/v1/challenge");
    assert.deepEqual(m.kind === "route" && m.params, {});
  });

  test("template params are extracted", () => {
    const m = router.match("PATCH", "/api/v1/sites/my-blog/pages/hello/comments/%24abc%3Alocalhost");
    assert.equal(m.kind, "route");
    assert.equal(m.kind === "route" && m.route.operationId, `PATCH ${COMMENT}`);
    assert.deepEqual(m.kind === "route" && m.params, {
      site_id: "my-blog",
      page_slug: "hello",
      comment_id: "$abc:localhost",
    });
  });

  test("an encoded '/' stays inside one param and is decoded", () => {
    const m = router.match("DELETE", "/api/v1/sites/s/pages/p/comments/%24base64%2Fwith%2Fslash");
    assert.equal(m.kind, "route");
    assert.deepEqual(m.kind === "route" && m.params, {
      site_id: "s",
      page_slug: "p",
      comment_id: "$base64/with/slash",
    });
  });

  test("an unencoded '/' in an event id does not match the single-segment template", () => {
    assert.deepEqual(router.match("DELETE", "/api/v1/sites/s/pages/p/comments/$base64/with/slash"), {
      kind: "not-found",
    });
  });

  test("percent-encoded emoji reaction keys are decoded", () => {
    const m = router.match("DELETE", "/api/v1/sites/s/pages/p/comments/%24e/reactions/%F0%9F%91%8D");
    assert.equal(m.kind, "route");
    assert.deepEqual(m.kind === "route" && m.params, { site_id: "s", page_slug: "p", comment_id: "$e", key: "👍" });
  });

  test("the same path with another method lists the allowed methods", () => {
    assert.deepEqual(router.match("GET", "/api/v1/sites/s/pages/p/comments/%24e"), {
      kind: "method-not-allowed",
      allowed: ["PATCH", "DELETE"],
    });
    assert.deepEqual(router.match("DELETE", "/api/v1/sites"), { kind: "method-not-allowed", allowed: ["POST"] });
    assert.deepEqual(router.match("GET", "/api/v1/sites/s/pages/p/comments"), {
      kind: "method-not-allowed",
      allowed: ["QUERY", "POST"],
    });
  });

  test("unknown paths are not found", () => {
    assert.deepEqual(router.match("GET", "/api/v1/nope"), { kind: "not-found" });
    assert.deepEqual(router.match("GET", "/"), { kind: "not-found" });
    assert.deepEqual(router.match("GET", "/api/v1/challenge/"), { kind: "not-found" });
    assert.deepEqual(router.match("GET", "/api/v1/challenge/extra"), { kind: "not-found" });
  });

  test("empty params do not match", () => {
    assert.deepEqual(router.match("PATCH", "/api/v1/sites/s/pages//comments/%24e"), { kind: "not-found" });
    assert.deepEqual(router.match("PATCH", "/api/v1/sites/s/pages/p/comments/"), { kind: "not-found" });
  });

  test("malformed percent-encoding does not match", () => {
    assert.deepEqual(router.match("PATCH", "/api/v1/sites/s/pages/p/comments/%E0%A4%A"), { kind: "not-found" });
    assert.deepEqual(router.match("PATCH", "/api/v1/sites/s/pages/p/comments/%ZZ"), { kind: "not-found" });
  });

  test("literal segments are case-sensitive", () => {
    assert.deepEqual(router.match("GET", "/api/v1/Challenge"), { kind: "not-found" });
  });
});

describe("Router.match lists every method served at the path", () => {
  const allowed = (method: string, path: string) => {
    const m = router.match(method, path);
    return m.kind === "not-found" ? [] : m.allowed;
  };
  test("for a matched route and for another method", () => {
    assert.deepEqual(allowed("PATCH", "/api/v1/sites/s/pages/p/comments/%24e"), ["PATCH", "DELETE"]);
    assert.deepEqual(allowed("OPTIONS", "/api/v1/sites/s/pages/p/comments/%24e"), ["PATCH", "DELETE"]);
    assert.deepEqual(allowed("GET", "/api/v1/challenge"), ["GET"]);
  });
  test("empty for unknown paths", () => {
    assert.deepEqual(allowed("GET", "/api/v1/nope"), []);
  });
});

describe("Router.match where a literal and a parameter end paths of one length", () => {
  const mixed = new Router([
    route("GET", "/api/v1/sites/{site_id}/pages/{page_slug}"),
    route("POST", "/api/v1/sites/{site_id}/pages/count"),
    route("DELETE", "/api/v1/sites/{site_id}/pages/{page_slug}"),
    route("PUT", "/api/v1/sites/{site_id}/origins/count"),
  ]);
  test("a path ending in the literal meets both, in table order", () => {
    const m = mixed.match("GET", "/api/v1/sites/s/pages/count");
    assert.equal(m.kind, "route");
    assert.equal(m.kind === "route" && m.route.path, "/api/v1/sites/{site_id}/pages/{page_slug}");
    assert.deepEqual(m.kind === "route" && m.params, { site_id: "s", page_slug: "count" });
    assert.deepEqual(m.kind === "route" && m.allowed, ["GET", "POST", "DELETE"]);
    const post = mixed.match("POST", "/api/v1/sites/s/pages/count");
    assert.equal(post.kind === "route" && post.route.path, "/api/v1/sites/{site_id}/pages/count");
  });
  test("a path ending in any other segment meets only the parameter-ended templates", () => {
    assert.deepEqual(mixed.match("POST", "/api/v1/sites/s/pages/hello"), {
      kind: "method-not-allowed",
      allowed: ["GET", "DELETE"],
    });
    assert.deepEqual(mixed.match("PUT", "/api/v1/sites/s/origins/other"), { kind: "not-found" });
    assert.equal(mixed.match("PUT", "/api/v1/sites/s/origins/count").kind, "route");
  });
});
