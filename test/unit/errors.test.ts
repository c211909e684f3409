// src/matrix/errors.ts
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { classifyMatrixError, hasErrcode } from "../../src/matrix/errors.ts";

const require = createRequire(import.meta.url);
const { MatrixError } = require("matrix-bot-sdk/lib/models/MatrixError.js") as {
  MatrixError: new (body: Record<string, unknown>, status: number) => Error & { statusCode: number; errcode: string };
};

describe("classifyMatrixError", () => {
  test("429 M_LIMIT_EXCEEDED from matrix-bot-sdk is transient with the server's retry_after_ms", () => {
    const err = new MatrixError({ errcode: "M_LIMIT_EXCEEDED", error: "Too many requests", retry_after_ms: 1500 }, 429);
    assert.deepEqual(classifyMatrixError(err), {
      transient: true,
      retryAfterMs: 1500,
      message: "429 M_LIMIT_EXCEEDED Too many requests",
    });
  });

  test("M_LIMIT_EXCEEDED is transient whatever the status", () => {
    const failure = classifyMatrixError({ statusCode: 400, errcode: "M_LIMIT_EXCEEDED", retryAfterMs: 20 });
    assert.equal(failure.transient, true);
    assert.equal(failure.retryAfterMs, 20);
  });

  test("429 without a retry hint is transient with retryAfterMs null", () => {
    assert.deepEqual(classifyMatrixError({ statusCode: 429 }), { transient: true, retryAfterMs: null, message: "429" });
  });

  test("500, 502 and 503 are transient", () => {
    for (const statusCode of [500, 502, 503]) {
      assert.equal(classifyMatrixError({ statusCode, message: "boom" }).transient, true, String(statusCode));
    }
  });

  test("a raw non-JSON error response (what matrix-bot-sdk throws without errcode) is classified by status", () => {
    assert.equal(classifyMatrixError({ statusCode: 502, body: "<html>Bad gateway</html>" }).transient, true);
    assert.equal(classifyMatrixError({ statusCode: 404, body: "<html>Not found</html>" }).transient, false);
  });

  test("403 is permanent", () => {
    const err = new MatrixError({ errcode: "M_FORBIDDEN", error: "You are banned" }, 403);
    assert.deepEqual(classifyMatrixError(err), {
      transient: false,
      retryAfterMs: null,
      message: "403 M_FORBIDDEN You are banned",
    });
  });

  test("400 and 404 are permanent", () => {
    assert.equal(classifyMatrixError({ statusCode: 400, errcode: "M_BAD_JSON" }).transient, false);
    assert.equal(classifyMatrixError({ statusCode: 404, errcode: "M_NOT_FOUND" }).transient, false);
  });

  test("network errors (no statusCode) are transient", () => {
    const err = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8008"), { code: "ECONNREFUSED" });
    assert.deepEqual(classifyMatrixError(err), {
      transient: true,
      retryAfterMs: null,
      message: "connect ECONNREFUSED 127.0.0.1:8008",
    });
  });

  test("non-object throws are transient and stringified", () => {
    assert.deepEqual(classifyMatrixError("socket hang up"), {
      transient: true,
      retryAfterMs: null,
      message: "socket hang up",
    });
    assert.deepEqual(classifyMatrixError(undefined), { transient: true, retryAfterMs: null, message: "undefined" });
  });
});

describe("hasErrcode", () => {
  test("matches the errcode of a MatrixError", () => {
    const err = new MatrixError({ errcode: "M_ROOM_IN_USE", error: "alias taken" }, 400);
    assert.equal(hasErrcode(err, "M_ROOM_IN_USE"), true);
    assert.equal(hasErrcode(err, "M_FORBIDDEN"), false);
  });
  test("false for values without errcode", () => {
    assert.equal(hasErrcode(new Error("x"), "M_FORBIDDEN"), false);
    assert.equal(hasErrcode(null, "M_FORBIDDEN"), false);
  });
});
