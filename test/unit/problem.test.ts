import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { DomainError, forbidden, notFound, rateLimited, validationError } from "../../src/core/errors.ts";
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, problem, toProblem } from "../../src/rest/problem.ts";

test("problem content type is application/problem+json", () => {
  assert.equal(PROBLEM_CONTENT_TYPE, "application/problem+json");
});

describe("toProblem for domain errors", () => {
  test("validation error with per-field errors", () => {
    const errors = [{ field: "content", message: "must not be empty" }];
    assert.deepEqual(
      toProblem(validationError("The comment is invalid.", errors), "/api/v1/sites/s/pages/p/comments"),
      {
        problem: {
          type: `${PROBLEM_TYPE_BASE}validation-error`,
          title: "Bad Request",
          status: 400,
          detail: "The comment is invalid.",
          code: "validation-error",
          instance: "/api/v1/sites/s/pages/p/comments",
          errors,
        },
        headers: {},
        unexpected: false,
      },
    );
  });

  test("the type is a stable URI ending in the code", () => {
    const { problem: p } = toProblem(forbidden("invalid-PoW", "The proof of work is invalid."));
    assert.ok(p.type.endsWith("invalid-PoW"));
    assert.equal(p.type, PROBLEM_TYPE_BASE + "invalid-PoW");
    assert.equal(p.status, 403);
    assert.equal(p.title, "Forbidden");
    assert.equal(p.code, "invalid-PoW");
  });

  test("headers are passed through (rate limiting)", () => {
    const r = toProblem(rateLimited(3600));
    assert.deepEqual(r.headers, { "Retry-After": "3600" });
    assert.equal(r.problem.status, 429);
    assert.equal(r.problem.title, "Too Many Requests");
    assert.equal(r.problem.code, "rate-limited");
    assert.equal(r.unexpected, false);
  });

  test("no instance and no errors keys when absent", () => {
    const { problem: p } = toProblem(notFound("site-not-found", "No such site."));
    assert.deepEqual(p, {
      type: `${PROBLEM_TYPE_BASE}site-not-found`,
      title: "Not Found",
      status: 404,
      detail: "No such site.",
      code: "site-not-found",
    });
    assert.equal("instance" in p, false);
    assert.equal("errors" in p, false);
  });

  test("a custom DomainError keeps its code, status and headers", () => {
    const err = new DomainError("idempotency-key-reused", 409, "Different request.", { headers: { "X-Test": "1" } });
    const r = toProblem(err);
    assert.equal(r.problem.type, `${PROBLEM_TYPE_BASE}idempotency-key-reused`);
    assert.equal(r.problem.status, 409);
    assert.equal(r.problem.title, "Conflict");
    assert.deepEqual(r.headers, { "X-Test": "1" });
  });
});

describe("toProblem for unexpected errors", () => {
  test("an Error becomes an opaque 500 without leaking its message", () => {
    const r = toProblem(new Error("password=hunter2 at db.internal:5432"), "/x");
    assert.deepEqual(r, {
      problem: {
        type: `${PROBLEM_TYPE_BASE}internal-error`,
        title: "Internal Server Error",
        status: 500,
        detail: "The service failed to handle this request.",
        code: "internal-error",
        instance: "/x",
      },
      headers: {},
      unexpected: true,
    });
    assert.equal(JSON.stringify(r).includes("hunter2"), false);
  });

  test("non-Error throws are unexpected too", () => {
    const r = toProblem("just a string");
    assert.equal(r.unexpected, true);
    assert.equal(r.problem.status, 500);
    assert.equal(r.problem.code, "internal-error");
    assert.equal(JSON.stringify(r).includes("just a string"), false);
  });

  test("an Error subclass that merely looks like a DomainError is still unexpected", () => {
    const fake = Object.assign(new Error("x"), { code: "validation-error", status: 400, extra: {} });
    assert.equal(toProblem(fake).unexpected, true);
  });
});

describe("problem", () => {
  test("unknown statuses get a generic title", () => {
    assert.equal(problem("teapot", 418, "short and stout").title, "Error");
  });
  test("405 and 413 titles", () => {
    assert.equal(problem("method-not-allowed", 405, "x").title, "Method Not Allowed");
    assert.equal(problem("payload-too-large", 413, "x").title, "Content Too Large");
  });
});
