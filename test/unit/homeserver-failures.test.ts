// Homeserver failures during a request: which thrown values are the homeserver's (matrix-bot-sdk
// and fetch shapes, real ones where they are cheap to get) and the problems they become; the
// database's failures and programming errors stay what they were.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Socket } from "node:net";
import { MatrixError } from "matrix-bot-sdk";
import { PrismaClientInitializationError, PrismaClientKnownRequestError } from "@prisma/client/runtime/client";
import { DomainError } from "../../src/core/errors.ts";
import { classifyMatrixError, homeserverFailure } from "../../src/matrix/errors.ts";
import { Homeserver } from "../../src/matrix/homeserver.ts";
import { MatrixNames } from "../../src/matrix/names.ts";
import { toProblem } from "../../src/rest/problem.ts";
import { HOMESERVER_RETRY_AFTER_SECONDS } from "../../src/config/limits.ts";
import { closedUrl } from "../support/closed-url.ts";

const matrixError = (status: number, errcode: string) => new MatrixError({ errcode, error: errcode }, status);

/** matrix-bot-sdk throws the raw response when an error status carries no Matrix error body. */
function rawResponse(status: number): IncomingMessage {
  const response = new IncomingMessage(new Socket());
  response.statusCode = status;
  return response;
}

describe("homeserverFailure", () => {
  test("a homeserver that cannot be reached is unavailable (matrix-bot-sdk and fetch, real errors)", async () => {
    const CLOSED = await closedUrl();
    const sdk = await new Homeserver(CLOSED, "token", new MatrixNames("_service_", "hs"), 5000)
      .joinedRooms("@u:hs")
      .catch((err: unknown) => err);
    assert.equal((sdk as { code?: string }).code, "ECONNREFUSED");
    assert.equal(homeserverFailure(sdk), "unavailable");
    // A homeserver that accepts but never answers: the request deadline (matrix.request_timeout_ms).
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const late = await new Homeserver(url, "token", new MatrixNames("_service_", "hs"), 200)
        .joinedRooms("@u:hs")
        .catch((err: unknown) => err);
      assert.equal(homeserverFailure(late), "unavailable", String(late));
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
    const fetched = await fetch(CLOSED).catch((err: unknown) => err);
    assert.equal(homeserverFailure(fetched), "unavailable", "fetch failed, caused by ECONNREFUSED");
    const timedOut = await fetch(CLOSED, {
      signal: AbortSignal.abort(new DOMException("timed out", "TimeoutError")),
    }).catch((err: unknown) => err);
    assert.equal(homeserverFailure(timedOut), "unavailable");
    for (const code of ["ECONNRESET", "ETIMEDOUT", "ESOCKETTIMEDOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_SOCKET"]) {
      assert.equal(homeserverFailure(Object.assign(new Error(code), { code })), "unavailable", code);
    }
    assert.equal(homeserverFailure(new DOMException("aborted", "AbortError")), "unavailable");
  });

  test("5xx, 429 and M_LIMIT_EXCEEDED are unavailable; other 4xx are refusals", () => {
    assert.equal(homeserverFailure(matrixError(502, "M_UNKNOWN")), "unavailable");
    assert.equal(homeserverFailure(matrixError(429, "M_LIMIT_EXCEEDED")), "unavailable");
    assert.equal(homeserverFailure(matrixError(400, "M_LIMIT_EXCEEDED")), "unavailable");
    assert.equal(homeserverFailure(rawResponse(503)), "unavailable", "a proxy's HTML 503");
    assert.equal(homeserverFailure(matrixError(403, "M_FORBIDDEN")), "refused");
    assert.equal(homeserverFailure(matrixError(413, "M_TOO_LARGE")), "refused");
    assert.equal(homeserverFailure(rawResponse(404)), "refused");
  });

  test("the same statuses the background retries treat as transient", () => {
    for (const err of [
      matrixError(500, "M_UNKNOWN"),
      matrixError(429, "M_LIMIT_EXCEEDED"),
      matrixError(403, "M_FORBIDDEN"),
      matrixError(404, "M_NOT_FOUND"),
    ]) {
      assert.equal(homeserverFailure(err) === "unavailable", classifyMatrixError(err).transient, err.errcode);
    }
  });

  test("database failures, domain errors and programming errors are not the homeserver's", () => {
    const unreachable = new PrismaClientKnownRequestError("Can't reach database server", {
      code: "P1001",
      clientVersion: "6.19.3",
    });
    assert.equal(homeserverFailure(unreachable), null);
    assert.equal(
      homeserverFailure(new PrismaClientInitializationError("Can't reach database server", "6.19.3", "P1001")),
      null,
    );
    // A driver adapter's socket failure, should one surface unwrapped.
    assert.equal(
      homeserverFailure(
        Object.assign(new Error("connect ECONNREFUSED"), {
          name: "DriverAdapterError",
          cause: { code: "ECONNREFUSED" },
        }),
      ),
      null,
    );
    assert.equal(homeserverFailure(Object.assign(new Error("busy"), { code: "P1008" })), null);
    assert.equal(homeserverFailure(new TypeError("cannot read properties of undefined")), null);
    assert.equal(homeserverFailure(Object.assign(new Error("no such file"), { code: "ENOENT" })), null);
    assert.equal(
      homeserverFailure({ statusCode: 503 }),
      null,
      "a status without a Matrix error or a response is nobody's",
    );
    assert.equal(homeserverFailure(new DomainError("validation-error", 400, "bad")), null);
    assert.equal(homeserverFailure("a string"), null);
    assert.equal(homeserverFailure(null), null);
  });
});

describe("toProblem for homeserver failures", () => {
  test("unavailable: 503 homeserver-unavailable with a constant Retry-After, not logged as unexpected", () => {
    const mapped = toProblem(matrixError(502, "M_UNKNOWN"), "/api/v1/sites/s/visitors/avatar");
    assert.equal(`${mapped.problem.status} ${mapped.problem.code}`, "503 homeserver-unavailable");
    assert.equal(mapped.problem.title, "Service Unavailable");
    assert.equal(mapped.problem.instance, "/api/v1/sites/s/visitors/avatar");
    assert.deepEqual(mapped.headers, { "Retry-After": String(HOMESERVER_RETRY_AFTER_SECONDS) });
    assert.equal(HOMESERVER_RETRY_AFTER_SECONDS, 30);
    assert.equal(mapped.unexpected, false);
  });

  test("refused: 502 homeserver-refused, logged", () => {
    const mapped = toProblem(matrixError(403, "M_FORBIDDEN"));
    assert.equal(`${mapped.problem.status} ${mapped.problem.code}`, "502 homeserver-refused");
    assert.equal(mapped.problem.title, "Bad Gateway");
    assert.deepEqual(mapped.headers, {});
    assert.equal(mapped.unexpected, true);
  });

  test("a domain error thrown for a Matrix error keeps its own code; a database failure stays a 500", () => {
    assert.equal(toProblem(new DomainError("payload-too-large", 413, "too large")).problem.code, "payload-too-large");
    const db = toProblem(
      new PrismaClientKnownRequestError("Can't reach database server", { code: "P1001", clientVersion: "6.19.3" }),
    );
    assert.equal(`${db.problem.status} ${db.problem.code}`, "500 internal-error");
    assert.equal(db.unexpected, true);
  });
});
