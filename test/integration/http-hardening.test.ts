// The HTTP edge under hostile or careless clients, over real HTTP: bodies over the cap are
// answered (not reset), odd input is a 4xx problem and never a 5xx, and SSE streams are
// capped, freed when their client leaves, and dropped when they stop reading. PostgreSQL,
// because its real I/O lets concurrent requests interleave as they do in production.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest, createServer, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { apiRoutes } from "../../src/app/api-document.ts";
import { APPSERVICE_MAX_BODY_BYTES, MAX_BODY_BYTES } from "../../src/config/limits.ts";
import { DRAIN_CEILING_BYTES } from "../../src/rest/request-body.ts";
import { SseWriter } from "../../src/sse/sse-writer.ts";
import {
  eventually,
  freshDatabase,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { TEST_HS_TOKEN } from "../support/environment.ts";
import { SseClient } from "../support/sse.ts";
import { assertProblem, expectProblem } from "../support/problems.ts";

const SITE = uniqueSiteId("hard");
const MAX_STREAMS = 3;

let service: TestService;
const url = (path: string) => `${service.url}${path}`;
const commentsPath = `/api/v1/sites/${SITE}/pages/page/comments`;
const ssePath = `/api/v1/sites/${SITE}/pages/page/sse`;
const listeners = () => service.services.pageEvents.live.listenerCount;

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request over node:http; an event stream is cut off after its headers. */
function raw(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer | string; chunked?: boolean } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const headers = {
      ...options.headers,
      ...(body && !options.chunked ? { "content-length": String(body.length) } : {}),
    };
    const req = httpRequest(url(path), { method, headers }, (res) => {
      if (res.headers["content-type"]?.startsWith("text/event-stream")) {
        res.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body: "" });
        return;
      }
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    // A reset (how oversized uploads used to end) fails the request.
    req.on("error", reject);
    if (body) {
      for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
    }
    req.end();
  });
}

const rawProblem = (res: RawResponse, status: number, code: string) =>
  assertProblem(
    { status: res.status, header: (name) => res.headers[name] as string | undefined, body: res.body },
    status,
    code,
  );

const json = { "content-type": "application/json" };
const twoMiB = () => Buffer.alloc(2 * 1024 * 1024, "x");

let dropDatabase: () => Promise<void> = async () => {};
before(async () => {
  const database = await freshDatabase("postgres");
  dropDatabase = database.drop;
  service = await startTestService({
    databaseUrl: database.url,
    worker: false,
    sites: { [SITE]: { origins: [TEST_ORIGIN] } },
    overrides: {
      "server.listen_port": 0,
      "rate_limit.sse_max_streams": MAX_STREAMS,
      "rate_limit.sse_burst": 10_000,
      "rate_limit.sse_per_hour": 10_000,
    },
  });
});
after(async () => {
  await service?.stop();
  await dropDatabase();
});

describe("bodies over the cap", () => {
  test("fetch with a declared 2 MiB body reads the 413 problem", async () => {
    const res = await fetch(url(commentsPath), {
      method: "POST",
      headers: { ...json, origin: TEST_ORIGIN },
      body: twoMiB(),
    });
    const problem = await expectProblem(res, 413, "payload-too-large");
    assert.match(problem.detail, new RegExp(String(MAX_BODY_BYTES)));
    assert.equal(res.headers.get("access-control-allow-origin"), TEST_ORIGIN, "a browser may read it too");
  });

  test("node:http with Content-Length and chunked without reads the 413 problem, with Connection: close", async () => {
    for (const chunked of [false, true]) {
      const res = await raw("POST", commentsPath, { headers: json, body: twoMiB(), chunked });
      rawProblem(res, 413, "payload-too-large");
      assert.equal(res.headers.connection, "close", chunked ? "chunked" : "content-length");
      assert.equal(res.headers["x-content-type-options"], "nosniff");
    }
  });

  test("a body of exactly the cap is read", async () => {
    const body = Buffer.alloc(MAX_BODY_BYTES, " ");
    body.write("{}");
    const res = await raw("QUERY", commentsPath, { headers: json, body });
    assert.equal(res.status, 200, res.body);
  });

  test("past the drain ceiling the connection is closed once the 413 is sent", async () => {
    const socket = connect((service.server.address() as AddressInfo).port, "127.0.0.1");
    let received = "";
    let closed = false;
    socket.on("data", (c: Buffer) => (received += c.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => (closed = true));
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST ${commentsPath} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, "x");
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    // Kernel buffers on both ends hold some more than the server reads.
    const bound = MAX_BODY_BYTES + DRAIN_CEILING_BYTES + 32 * 1024 * 1024;
    let sent = 0;
    while (!closed && !socket.destroyed && sent < bound) {
      if (!socket.write(frame))
        await Promise.race([new Promise((r) => socket.once("drain", r)), new Promise((r) => setTimeout(r, 200))]);
      sent += frame.length;
    }
    await eventually(
      async () => closed || socket.destroyed || received.includes("\r\n\r\n{"),
      10_000,
      "the server's answer",
    );
    socket.destroy();
    assert.ok(sent < bound, `the server kept reading (${sent} bytes sent)`);
    assert.match(received, /^HTTP\/1\.1 413 /);
    assert.match(received, /connection: close/i);
    assert.match(received, /"code":"payload-too-large"/);
  });

  test("the appservice endpoint takes transactions past the public cap, up to its own", async () => {
    const txn = (id: string, body: string) =>
      fetch(url(`/_matrix/app/v1/transactions/${id}`), {
        method: "PUT",
        headers: { ...json, authorization: `Bearer ${TEST_HS_TOKEN}` },
        body,
      });
    const big = await txn(
      "hard-big",
      JSON.stringify({ events: [], ephemeral: [], padding: "x".repeat(4 * 1024 * 1024) }),
    );
    assert.equal(big.status, 200, await big.text());
    const tooBig = await txn(
      "hard-too-big",
      JSON.stringify({ events: [], padding: "x".repeat(APPSERVICE_MAX_BODY_BYTES) }),
    );
    assert.equal(tooBig.status, 413);
    assert.equal(((await tooBig.json()) as any).errcode, "M_TOO_LARGE");
  });
});

describe("odd input is a 400, never a 500", () => {
  test("an unpaired surrogate anywhere in a body is refused before anything is queued, naming the field", async () => {
    const before = await service.services.db.submission.count();
    const cases: [string, string][] = [
      [
        '{"content": "hi \\ud800", "author_public_key": "a", "author_signature": "b", "challenge_response": "c"}',
        "content",
      ],
      ['{"content": "hi", "media": {"url": "\\udc00"}}', "media.url"],
      ['{"display_name": "\\ud83d"}', "display_name"],
    ];
    for (const [body, field] of cases) {
      const res = await raw("POST", commentsPath, {
        headers: { ...json, origin: TEST_ORIGIN, "idempotency-key": "k" },
        body,
      });
      assert.equal(rawProblem(res, 400, "validation-error").errors[0].field, field);
    }
    assert.equal(await service.services.db.submission.count(), before);
  });

  test("percent-encoding that is invalid or decodes to ill-formed UTF-16, in the path or the query", async () => {
    const targets = [
      `/api/v1/sites/%ZZ/pages/page/comments`,
      `/api/v1/sites/${SITE}/pages/%ED%A0%80/comments`,
      `/api/v1/sites/${SITE}/pages/%C3/comments`,
      `${commentsPath}?x=%ED%B0%80`,
      `${commentsPath}?%FF`,
      `/api/v1/no-such-route/%E0%A4`,
    ];
    for (const target of targets)
      rawProblem(await raw("QUERY", target, { headers: json, body: "{}" }), 400, "validation-error");
  });

  test("page and per_page out of range", async () => {
    const cases: [string, string][] = [
      ['{"page": 1e20}', "page"],
      ['{"page": 9007199254740992}', "page"],
      ['{"page": 2147483648}', "page"],
      ['{"page": 1000001}', "page"],
      ['{"page": 1e400}', "page"],
      ['{"page": 0}', "page"],
      ['{"page": 1.5}', "page"],
      ['{"per_page": 101}', "per_page"],
      ['{"per_page": 1e400}', "per_page"],
      ['{"per_page": -5}', "per_page"],
    ];
    for (const [body, field] of cases) {
      const problem = rawProblem(await raw("QUERY", commentsPath, { headers: json, body }), 400, "validation-error");
      assert.equal(problem.errors[0].field, field, body);
    }
    const last = await raw("QUERY", commentsPath, { headers: json, body: '{"page": 1000000}' });
    assert.equal(last.status, 200, last.body);
  });

  test("a Last-Event-ID that is not a decimal integer in range", async () => {
    for (const id of ["abc", "-1", "1.5", "1e3", " ", "0x10", "2147483648", "99999999999999999999", "1, 2"]) {
      const problem = rawProblem(
        await raw("GET", ssePath, { headers: { "last-event-id": id } }),
        400,
        "validation-error",
      );
      assert.equal(problem.errors[0].field, "Last-Event-ID", id);
    }
    for (const id of ["0", "2147483647"])
      assert.equal((await raw("GET", ssePath, { headers: { "last-event-id": id } })).status, 200, id);
  });

  test("wrong types, deep nesting, empty, non-object and non-JSON bodies", async () => {
    const post = (body: string | Buffer, headers: Record<string, string> = json) =>
      raw("POST", commentsPath, { headers: { ...headers, origin: TEST_ORIGIN, "idempotency-key": "k" }, body });
    rawProblem(
      await post('{"content": 5, "author_public_key": [], "author_signature": {}, "challenge_response": null}'),
      400,
      "validation-error",
    );
    rawProblem(await post(`{"media": ${"[".repeat(50_000)}${"]".repeat(50_000)}}`), 400, "validation-error");
    rawProblem(await post(""), 400, "validation-error");
    for (const body of ["[]", "null", '"text"', "42"]) rawProblem(await post(body), 400, "validation-error");
    rawProblem(await post(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])), 400, "validation-error");
    rawProblem(await post("{}", { "content-type": "text/plain" }), 415, "unsupported-media-type");
  });

  test("fuzz: every route answers odd input with a 4xx problem (or success), never a 5xx", async () => {
    const fill = (path: string, value: string) =>
      path.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === "site_id" ? SITE : name === "page_slug" ? "page" : value,
      );
    const segments = ["x", "%ZZ", "%ED%A0%80", "%00", "%2F..%2F", "A".repeat(300), "%F0%9F%98%80", "__proto__"];
    // Whole bodies that are odd as a whole.
    const bodies: (string | Buffer)[] = [
      "",
      "{",
      "null",
      "[]",
      '"\\ud800"',
      "1e400",
      '{"\\ud800": 1}',
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {}}}',
      `{"x": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`,
      Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
      Buffer.from([0x7b, 0xc3, 0x28, 0x7d]),
    ];
    const headerSets: Record<string, string>[] = [
      json,
      { "content-type": "text/plain" },
      { "content-type": "application/json; charset=utf-16" },
      { ...json, "last-event-id": "-1", "idempotency-key": " ", origin: "null" },
      {
        ...json,
        "idempotency-key": "x".repeat(300),
        "x-service-timestamp": "99999999999999999999",
        "x-service-signature": "zz",
        authorization: "Bearer",
      },
    ];
    // Odd values (as JSON text) for one field at a time of an otherwise plausible body.
    const values = [
      '"\\ud800"',
      '"a\\udfffb"',
      "1e400",
      "-1e400",
      "1e20",
      "9007199254740993",
      "2147483648",
      "-1",
      "0",
      "1.5",
      "true",
      "null",
      "[]",
      "{}",
      '{"\\ud800": 1}',
      `"${"x".repeat(20_000)}"`,
      `${"[".repeat(40)}${"]".repeat(40)}`,
    ];
    const plausible = (schema: any): unknown => {
      if (schema?.enum) return schema.enum[0];
      const types = [schema?.type].flat();
      return types.includes("integer") || types.includes("number")
        ? 1
        : types.includes("object")
          ? {}
          : types.includes("null") && !types.includes("string")
            ? null
            : "x";
    };
    const withField = (properties: Record<string, unknown>, field: string, value: string) => {
      const rest = Object.fromEntries(
        Object.entries(properties)
          .filter(([name]) => name !== field)
          .map(([name, schema]) => [name, plausible(schema)]),
      );
      const restText = JSON.stringify(rest);
      return `{${JSON.stringify(field)}: ${value}${restText === "{}" ? "}" : `, ${restText.slice(1)}`}`;
    };

    const failures: string[] = [];
    let requests = 0;
    const check = async (method: string, path: string, headers: Record<string, string>, body: string | Buffer) => {
      const res = await raw(method, path, { headers, body });
      requests++;
      const what = `${method} ${path.slice(0, 120)} ${JSON.stringify(headers).slice(0, 80)} ${String(body).slice(0, 60)} → ${res.status}`;
      if (res.status >= 500) failures.push(`${what}: ${res.body}`);
      else if (res.status >= 400 && res.headers["content-type"] !== "application/problem+json")
        failures.push(`${what}: not a problem`);
    };
    let key = 0;
    const writeHeaders = () => ({ ...json, origin: TEST_ORIGIN, "idempotency-key": `fuzz-${key++}` });
    for (const route of apiRoutes) {
      const path = fill(route.path, "x");
      for (const body of bodies) for (const headers of headerSets) await check(route.method, path, headers, body);
      const properties = ((route.body?.schema as any)?.properties ?? {}) as Record<string, unknown>;
      for (const field of Object.keys(properties))
        for (const value of values)
          await check(route.method, path, writeHeaders(), withField(properties, field, value));
      const queryNames = Object.keys(route.query?.properties ?? {});
      for (const name of queryNames) {
        for (const value of ["%ED%A0%80", "%ZZ", "1e400", "1e20", "-1", "", "x".repeat(5000)])
          await check(route.method, `${path}?${name}=${value}`, writeHeaders(), "{}");
      }
      for (const segment of segments) {
        await check(route.method, fill(route.path, segment).replace(`/${SITE}/`, `/${segment}/`), json, "{}");
        await check(route.method, `${path}?${segment}=${segment}&page=1e400`, json, "{}");
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(requests > apiRoutes.length * bodies.length * headerSets.length);
  });
});

describe("SSE stream limits", () => {
  const openAll = (n: number) => Promise.all(Array.from({ length: n }, () => SseClient.open(url(ssePath))));

  test("concurrent connects never overshoot the cap; the rest are 429 rate-limited with Retry-After", async () => {
    await eventually(async () => listeners() === 0, 5_000, "earlier streams closed");
    const clients = await openAll(MAX_STREAMS + 5);
    try {
      const open = clients.filter((c) => c.status === 200);
      const refused = clients.filter((c) => c.status === 429);
      assert.equal(open.length, MAX_STREAMS);
      assert.equal(refused.length, 5);
      for (const c of refused) {
        assert.equal(c.headers!.get("retry-after"), "3600");
        assert.equal(c.headers!.get("content-type"), "application/problem+json");
      }
      // The page's streams share one subscription, so one listener serves them all.
      await eventually(async () => listeners() === 1, 5_000, "one listener for the page's shared feed");
    } finally {
      for (const c of clients) c.close();
    }
    await eventually(async () => listeners() === 0, 5_000, "listeners removed");
  });

  test("a client that goes away frees its slot and listener at once, even while its stream is opening", async () => {
    const clients = await openAll(MAX_STREAMS);
    assert.deepEqual(
      clients.map((c) => c.status),
      Array(MAX_STREAMS).fill(200),
    );
    await eventually(async () => clients.every((c) => c.messages.length > 0), 5_000, "typing snapshots");
    for (const c of clients) c.close();
    await eventually(async () => listeners() === 0, 5_000, "listeners removed");

    // Aborted before the stream is established: the slot must come back all the same.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const controller = new AbortController();
        const pending = fetch(url(ssePath), { signal: controller.signal }).then(
          (res) => res.body?.cancel(),
          () => {},
        );
        setTimeout(() => controller.abort(), i % 5);
        return pending;
      }),
    );
    await eventually(async () => listeners() === 0, 5_000, "listeners removed after early aborts");
    const again = await openAll(MAX_STREAMS);
    try {
      assert.deepEqual(
        again.map((c) => c.status),
        Array(MAX_STREAMS).fill(200),
        "every slot was released",
      );
    } finally {
      for (const c of again) c.close();
    }
    await eventually(async () => listeners() === 0, 5_000, "listeners removed");
  });

  test("a client that stops reading is dropped once its unsent output passes the bound", async () => {
    const limit = 64 * 1024;
    let dropped: () => void;
    const droppedPromise = new Promise<void>((resolve) => (dropped = resolve));
    let written = 0;
    const server = createServer((_req, res) => {
      const writer = new SseWriter(res, {}, limit);
      res.once("close", () => {
        writer.close();
        dropped();
      });
      const frame = { text: "y".repeat(16 * 1024) };
      const pump = () => {
        if (res.destroyed || written > 256 * 1024 * 1024) return;
        writer.send(String(written), frame);
        written += 16 * 1024;
        setImmediate(pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    socket.once("data", () => socket.pause());
    try {
      await droppedPromise;
      assert.ok(written < 256 * 1024 * 1024, `the server kept buffering (${written} bytes)`);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});
