// Hostile input against the real service and test Synapse: whatever a client sends,
// the answer is a 4xx problem (or on the appservice API a Matrix error), never a 5xx, and a 202
// is never given for a write the homeserver would then refuse.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, type AddressInfo } from "node:net";
import { eventually, startTestService, uniqueSiteId, TEST_ORIGIN, type TestService } from "../support/harness.ts";
import { TEST_HS_TOKEN, TEST_OPERATOR_TOKEN } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { expectProblem } from "../support/problems.ts";
import { UPLOAD_SLOTS } from "../../src/config/limits.ts";

const SITE = uniqueSiteId("hostile");

let service: TestService;
const url = (path: string) => `${service.url}${path}`;

before(async () => {
  service = await startTestService({ sites: { [SITE]: { origins: [TEST_ORIGIN] } } });
});
after(async () => {
  await service?.stop();
});

describe("secrets of the right UTF-16 length but more bytes", () => {
  // Same UTF-16 length as the configured token, twice the UTF-8 bytes.
  const lookalike = (token: string) => "é".repeat(token.length);

  test("operator routes, /graphql and /graphql/stream: 403 malformed-authorization (not a b64token)", async () => {
    const headers = { authorization: `Bearer ${lookalike(TEST_OPERATOR_TOKEN)}`, "content-type": "application/json" };
    await expectProblem(
      await fetch(url("/api/v1/operator/sites"), { method: "QUERY", headers, body: "{}" }),
      403,
      "malformed-authorization",
    );
    await expectProblem(
      await fetch(url("/graphql"), { method: "POST", headers, body: '{"query":"{ __typename }"}' }),
      403,
      "malformed-authorization",
    );
    await expectProblem(
      await fetch(url("/graphql/stream"), { method: "POST", headers, body: '{"query":"{ __typename }"}' }),
      403,
      "malformed-authorization",
    );
  });

  test("the appservice API, by header or access_token: 403 M_FORBIDDEN in Matrix's error format", async () => {
    const bad = lookalike(TEST_HS_TOKEN);
    const answers = [
      await fetch(url("/_matrix/app/v1/transactions/t1"), {
        method: "PUT",
        headers: { authorization: `Bearer ${bad}`, "content-type": "application/json" },
        body: "{}",
      }),
      await fetch(url(`/_matrix/app/v1/transactions/t2?access_token=${encodeURIComponent(bad)}`), {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: "{}",
      }),
      await fetch(url(`/_matrix/app/v1/users/%40x%3Alocalhost?access_token=${encodeURIComponent(bad)}`)),
    ];
    for (const res of answers) {
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as any).errcode, "M_FORBIDDEN");
    }
  });
});

describe("an Authorization header that is present but not a bearer token", () => {
  // Each would be one credential or another if read loosely; each is refused as sent. (Spaces
  // after the token never reach the service: HTTP strips a header value's trailing whitespace.)
  const malformed = (token: string) => [
    `bearer ${token}`,
    `Bearer\t${token}`,
    `Bearer  ${token}`,
    `Bearer ${token} extra`,
    "Bearer",
    "Bearer ",
    `Basic ${Buffer.from(`operator:${token}`).toString("base64")}`,
    "",
  ];
  const json = { "content-type": "application/json" };

  test("on /graphql and /graphql/stream: 403 malformed-authorization, never run as anyone", async () => {
    for (const authorization of malformed(TEST_OPERATOR_TOKEN)) {
      for (const path of ["/graphql", "/graphql/stream"]) {
        const res = await fetch(url(path), {
          method: "POST",
          headers: { ...json, accept: "text/event-stream", authorization },
          body: '{"query":"{ __typename }"}',
        });
        await expectProblem(res, 403, "malformed-authorization");
      }
    }
  });

  test("on operator and public routes alike: 403 malformed-authorization", async () => {
    for (const authorization of malformed(TEST_OPERATOR_TOKEN)) {
      await expectProblem(
        await fetch(url("/api/v1/operator/sites"), {
          method: "QUERY",
          headers: { ...json, authorization },
          body: "{}",
        }),
        403,
        "malformed-authorization",
      );
      await expectProblem(
        await fetch(url(`/api/v1/sites/${SITE}/pages/p/comments`), {
          method: "QUERY",
          headers: { ...json, authorization },
          body: "{}",
        }),
        403,
        "malformed-authorization",
      );
    }
    // The well-formed operator bearer is still the operator; absent, a public read is public.
    const operator = await fetch(url("/api/v1/operator/sites"), {
      method: "QUERY",
      headers: { ...json, authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
      body: "{}",
    });
    assert.equal(operator.status, 200, await operator.text());
    const graphql = await fetch(url("/graphql"), {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
      body: '{"query":"{ __typename }"}',
    });
    assert.equal(graphql.status, 200, await graphql.text());
    const read = await fetch(url(`/api/v1/sites/${SITE}/pages/p/comments`), {
      method: "QUERY",
      headers: json,
      body: "{}",
    });
    assert.equal(read.status, 200, await read.text());
  });

  test("/graphql/stream answers what graphql-sse refuses as a problem document", async () => {
    const headers = { ...json, authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
    // Without Accept: text/event-stream graphql-sse expects a reserved single-connection stream.
    for (const res of [
      await fetch(url("/graphql/stream"), { method: "POST", headers, body: '{"query":"{ __typename }"}' }),
      await fetch(url("/graphql/stream"), { method: "DELETE", headers }),
      await fetch(url("/graphql/stream?token=nope"), { method: "GET", headers }),
    ]) {
      assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
      assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
      const body = (await res.json()) as { code?: string; status?: number };
      assert.equal(typeof body.code, "string");
      assert.equal(body.status, res.status);
    }
  });
});

describe("framing errors", () => {
  /** What the service sends for `raw` until it closes the connection. */
  const exchange = (raw: string) =>
    new Promise<string>((resolve) => {
      const socket = connect((service.server.address() as AddressInfo).port, "127.0.0.1");
      let received = "";
      socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
      socket.on("error", () => {});
      socket.on("close", () => resolve(received));
      socket.write(raw);
    });

  test("an unknown method and headers over the limit are problem documents, and the connection is closed", async () => {
    for (const [raw, status, code] of [
      ["BREW /health HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad-request"],
      [
        `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
        431,
        "request-header-fields-too-large",
      ],
    ] as const) {
      const [head, body] = (await exchange(raw)).split("\r\n\r\n") as [string, string];
      assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `));
      assert.match(head, /content-type: application\/problem\+json/i);
      assert.equal(JSON.parse(body).code, code);
    }
  });
});

describe("integers beyond GraphQL Int", () => {
  test("max_selections and media.size of 2^31 and more are 400 validation-error naming the field, never a 500", async () => {
    const proof = '"author_public_key": "a", "author_signature": "b", "challenge_response": "c"';
    const cases: [string, string, string][] = [
      ["polls", `{"question": "Q?", "options": ["a", "b"], "max_selections": 2147483648, ${proof}}`, "max_selections"],
      [
        "polls",
        `{"question": "Q?", "options": ["a", "b"], "max_selections": 9007199254740993, ${proof}}`,
        "max_selections",
      ],
      ["polls", `{"question": "Q?", "options": ["a", "b"], "max_selections": 1e308, ${proof}}`, "max_selections"],
      ["polls", `{"question": "Q?", "options": ["a", "b"], "max_selections": -2147483649, ${proof}}`, "max_selections"],
      ["comments", `{"media": {"url": "mxc://localhost/x", "size": 2147483648}, ${proof}}`, "media.size"],
    ];
    for (const [kind, body, field] of cases) {
      const res = await fetch(url(`/api/v1/sites/${SITE}/pages/page/${kind}`), {
        method: "POST",
        headers: { "content-type": "application/json", origin: TEST_ORIGIN, "idempotency-key": `k-${field}` },
        body,
      });
      const problem = await expectProblem(res, 400, "validation-error");
      assert.equal(problem.errors[0].field, field, body);
    }
  });
});

describe("what the homeserver would refuse after a 202", () => {
  test("a display name within 50 grapheme clusters but over 256 code points: 400 for comments, polls and locations", async () => {
    const display_name = "👨‍👩‍👧‍👦".repeat(40);
    const proof = { author_public_key: "a", author_signature: "b", challenge_response: "c" };
    const bodies: [string, Record<string, unknown>][] = [
      ["comments", { content: "hi", display_name, ...proof }],
      ["polls", { question: "Q?", options: ["a", "b"], display_name, ...proof }],
      ["location", { geo_uri: "geo:48.2,16.3", display_name, ...proof }],
    ];
    const before = await service.services.db.submission.count();
    for (const [kind, body] of bodies) {
      const res = await fetch(url(`/api/v1/sites/${SITE}/pages/page/${kind}`), {
        method: "POST",
        headers: { "content-type": "application/json", origin: TEST_ORIGIN, "idempotency-key": `dn-${kind}` },
        body: JSON.stringify(body),
      });
      const problem = await expectProblem(res, 400, "validation-error");
      assert.ok(
        problem.errors.some((e: any) => e.field === "display_name" && /256 Unicode code points/.test(e.message)),
        JSON.stringify(problem.errors),
      );
    }
    assert.equal(await service.services.db.submission.count(), before);
  });
});

describe("sticker info the homeserver would refuse", () => {
  test("floats and integers beyond ±(2^53−1) in info: 400 validation-error naming the field, not 502", async () => {
    const siteId = uniqueSiteId("hostile-stickers");
    const registered = await fetch(url("/api/v1/sites"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site_id: siteId }),
    });
    assert.equal(registered.status, 201);
    const { claim_token } = (await registered.json()) as { claim_token: string };
    const cases: [string, string][] = [
      ['{"w": 64.5, "h": 64}', "info.w"],
      ['{"w": 64, "size": 9007199254740993}', "info.size"],
      ['{"thumbnail_info": {"h": 1e308}}', "info.thumbnail_info.h"],
    ];
    for (const [info, field] of cases) {
      const res = await fetch(url(`/api/v1/sites/${siteId}/packs/cats/stickers`), {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-claim-token": claim_token },
        body: `{"shortcode": "purr", "url": "mxc://localhost/purr", "info": ${info}}`,
      });
      const problem = await expectProblem(res, 400, "validation-error");
      assert.equal(problem.errors[0].field, field, info);
    }
  });
});

describe("one bad transaction entry", () => {
  test("null ephemeral data, typing without a user_ids list and an event nested 5,000 deep are recorded and skipped; the transaction is acknowledged", async () => {
    // Written by hand: JSON.stringify itself overflows the stack on it.
    const content = `${'{"nested":'.repeat(5_000)}"bottom"${"}".repeat(5_000)}`;
    const txnId = `hostile-${Date.now()}`;
    const event = `{"event_id": "$deep-${txnId}", "room_id": "!nowhere:localhost", "type": "m.room.message", "sender": "@u:localhost", "origin_server_ts": 1, "content": ${content}}`;
    const body = `{"events": [${event}], "ephemeral": [null, {"type": "m.typing", "room_id": "!nowhere:localhost", "content": {"user_ids": "@u:localhost"}}]}`;
    const res = await fetch(url(`/_matrix/app/v1/transactions/${txnId}`), {
      method: "PUT",
      headers: { authorization: `Bearer ${TEST_HS_TOKEN}`, "content-type": "application/json" },
      body,
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), {});
    const repairs = await service.services.db.projectionRepair.findMany({
      where: { targetEventId: { in: [`$deep-${txnId}`, `${txnId}/ephemeral/0`, `${txnId}/ephemeral/1`] } },
    });
    assert.equal(repairs.length, 3, JSON.stringify(repairs));
  });
});

describe("uploads before their bytes", () => {
  /** Sends an upload's head declaring `length` body bytes, and none of them; resolves with what the service answers meanwhile. */
  const headOnly = (path: string, length: number) => {
    const socket = connect((service.server.address() as AddressInfo).port, "127.0.0.1");
    socket.on("error", () => {});
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nIdempotency-Key: k-${Math.random()}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\n\r\n`,
    );
    return { socket, answer: () => received };
  };
  const FIFTY_MIB = 50 * 1024 * 1024;

  test("an unsolved or unknown challenge and a malformed proof are refused before a byte of the body is read", async () => {
    const visitor = new Visitor(service.url);
    const { path } = await visitor.uploadRequest(SITE, "page", Buffer.from("x"), "video/mp4", null);
    const cases: [string, RegExp][] = [
      [
        path.replace(/challenge_response=[^&]+/, "challenge_response=forged%7Cnonce"),
        /^HTTP\/1\.1 403 [^]*"code":"invalid-PoW"/,
      ],
      [
        path.replace(/author_public_key=[^&]+/, "author_public_key=short"),
        /^HTTP\/1\.1 400 [^]*"field":"author_public_key"/,
      ],
      [path.replace(`/sites/${SITE}/`, "/sites/no-such-site-x/"), /^HTTP\/1\.1 404 /],
    ];
    for (const [target, expected] of cases) {
      const upload = headOnly(target, FIFTY_MIB);
      try {
        await eventually(async () => expected.test(upload.answer()), 5_000, `an answer to ${target}`);
      } finally {
        upload.socket.destroy();
      }
    }
  });

  test("uploads in progress are bounded per client: one more is 429 rate-limited with Retry-After", async () => {
    const visitor = new Visitor(service.url);
    const held = [];
    try {
      for (let i = 0; i < UPLOAD_SLOTS.perClient; i++)
        held.push(
          headOnly(
            (await visitor.uploadRequest(SITE, "page", Buffer.from(`x${i}`), "video/mp4", null)).path,
            FIFTY_MIB,
          ),
        );
      // The held uploads are admitted and waiting for their bodies.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { path } = await visitor.uploadRequest(SITE, "page", Buffer.from("y"), "video/mp4", null);
      const res = await fetch(url(path), {
        method: "POST",
        headers: { "idempotency-key": "k-over", "content-type": "application/octet-stream" },
        body: new Uint8Array(16),
      });
      assert.equal(res.headers.get("retry-after"), String(UPLOAD_SLOTS.retryAfterSeconds));
      await expectProblem(res, 429, "rate-limited");
      assert.equal(
        held.every((upload) => upload.answer() === ""),
        true,
        "the held uploads are still being read",
      );
    } finally {
      for (const upload of held) upload.socket.destroy();
    }
    // Freed once their clients are gone.
    await eventually(
      async () => {
        const { path } = await visitor.uploadRequest(SITE, "page", Buffer.from("z"), "video/mp4", null);
        const res = await fetch(url(path), {
          method: "POST",
          headers: { "idempotency-key": `k-after-${Math.random()}`, "content-type": "application/octet-stream" },
          body: new Uint8Array(16),
        });
        return res.status !== 429;
      },
      5_000,
      "the slots to be freed",
    );
  });
});
