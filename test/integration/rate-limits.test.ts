// Rate limits over real HTTP: every budget of the API's table answers 429 rate-limited with its
// fixed Retry-After once spent, claim-token and operator attempts spend their budgets whatever
// the credential, a refused request is answered without its body being read, and the client
// key follows X-Forwarded-For only from trusted proxies.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { eventually, startTestService, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { TEST_OPERATOR_TOKEN, TEST_SERVICE_PORT } from "../support/environment.ts";
import { expectProblem } from "../support/problems.ts";

const SITE = uniqueSiteId("rl");
const BUDGET = 2;
/** Claim routes spend the claim-token bucket too: one more, so their own budget runs out first. */
const CLAIM_BUDGET = 3;

const overrides = (extra: Record<string, unknown> = {}) => ({
  ...Object.fromEntries(
    [
      "site_registration",
      "verification_start",
      "verification_confirm",
      "comment_write",
      "profile_read",
      "challenge",
      "public_read",
      "governance_write",
      "operator",
      "media_upload",
    ].map((key) => [`rate_limit.${key}`, BUDGET]),
  ),
  "rate_limit.claim_token": CLAIM_BUDGET,
  "rate_limit.sse_burst": BUDGET,
  "rate_limit.sse_per_hour": 1,
  ...extra,
});

let service: TestService;
const url = (path: string) => `${service.url}${path}`;
const json = { "content-type": "application/json" };

/** A service for the enclosing describe block. */
function useService(extra: Record<string, unknown>): void {
  before(async () => {
    service = await startTestService({
      worker: false,
      sites: { [SITE]: { origins: [TEST_ORIGIN] } },
      overrides: overrides(extra),
    });
  });
  after(async () => {
    await service?.stop();
  });
}

/** Sends `budget` admitted requests (none may be a 429), then one more, which is returned. */
async function spend(budget: number, send: (i: number) => Promise<Response>): Promise<Response> {
  for (let i = 0; i < budget; i++) {
    const res = await send(i);
    assert.notEqual(res.status, 429, `request ${i + 1} of ${budget} was refused`);
    await res.body?.cancel();
  }
  return send(budget);
}

async function assertRateLimited(res: Response, retryAfter: number): Promise<void> {
  assert.equal(res.status, 429, await res.clone().text());
  assert.equal(res.headers.get("retry-after"), String(retryAfter));
  await expectProblem(res, 429, "rate-limited");
}

async function registerSite(from: string): Promise<{ site_id: string; claim_token: string }> {
  const res = await fetch(url("/api/v1/sites"), { method: "POST", headers: { "x-forwarded-for": from } });
  assert.equal(res.status, 201);
  return (await res.json()) as { site_id: string; claim_token: string };
}

/** A raw HTTP/1.1 connection to the service, collecting what it answers. */
async function rawConnection(): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect(TEST_SERVICE_PORT, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("connect", resolve));
  return { socket, received: () => received };
}

// Not anchored to a line start: a response follows the previous body directly.
const responses = (text: string) => text.match(/HTTP\/1\.1 \d{3}/g) ?? [];

describe('behind a trusted proxy (server.trusted_proxies = ["loopback"])', () => {
  useService({ "server.trusted_proxies": ["loopback"] });

  describe("every budget (one client key per test)", () => {
    // Each test is its own client, so budgets do not meet.
    let n = 0;
    const client = () => ({ "x-forwarded-for": `198.51.100.${++n}` });

    test("site registration: 429 with Retry-After 3600", async () => {
      const as = client();
      await assertRateLimited(
        await spend(BUDGET, () => fetch(url("/api/v1/sites"), { method: "POST", headers: as })),
        3600,
      );
    });

    test("proof-of-work challenges", async () => {
      const as = client();
      await assertRateLimited(await spend(BUDGET, () => fetch(url("/api/v1/challenge"), { headers: as })), 3600);
    });

    test("public reads", async () => {
      const as = client();
      const list = () =>
        fetch(url(`/api/v1/sites/${SITE}/pages/p/comments`), {
          method: "QUERY",
          headers: { ...as, ...json },
          body: "{}",
        });
      await assertRateLimited(await spend(BUDGET, list), 3600);
    });

    test("comment writes: refused before the body is looked at", async () => {
      const as = client();
      const post = () =>
        fetch(url(`/api/v1/sites/${SITE}/pages/p/comments`), {
          method: "POST",
          headers: { ...as, ...json, origin: TEST_ORIGIN, "idempotency-key": "k" },
          body: "{}",
        });
      await assertRateLimited(await spend(BUDGET, post), 3600);
    });

    test("visitor avatar writes share the comment budget", async () => {
      const as = client();
      const sends = [
        () =>
          fetch(url(`/api/v1/sites/${SITE}/pages/p/comments`), {
            method: "POST",
            headers: { ...as, ...json, origin: TEST_ORIGIN, "idempotency-key": "k" },
            body: "{}",
          }),
        () =>
          fetch(url(`/api/v1/sites/${SITE}/visitors/avatar?mime=image/png`), {
            method: "PUT",
            headers: { ...as, "idempotency-key": "k" },
            body: "x",
          }),
        () => fetch(url(`/api/v1/sites/${SITE}/visitors/avatar`), { method: "DELETE", headers: as }),
      ];
      await assertRateLimited(await spend(BUDGET, (i) => sends[i]!()), 3600);
    });

    test("media uploads: their own budget, refused before the body is read", async () => {
      const as = client();
      const upload = () =>
        fetch(url(`/api/v1/sites/${SITE}/pages/p/media?mime=image/png`), {
          method: "POST",
          headers: { ...as, "idempotency-key": "k" },
          body: "x",
        });
      await assertRateLimited(await spend(BUDGET, upload), 3600);
      // Comment writes are another budget.
      const post = () =>
        fetch(url(`/api/v1/sites/${SITE}/pages/p/comments`), {
          method: "POST",
          headers: { ...as, ...json, origin: TEST_ORIGIN, "idempotency-key": "k" },
          body: "{}",
        });
      assert.notEqual((await post()).status, 429);
    });

    test("visitor profile reads", async () => {
      const as = client();
      const read = () =>
        fetch(url(`/api/v1/sites/${SITE}/visitors/profile?author_public_key=${"A".repeat(43)}`), { headers: as });
      await assertRateLimited(await spend(BUDGET, read), 3600);
    });

    test("SSE connections: a token bucket of burst size", async () => {
      const as = client();
      const streams: AbortController[] = [];
      const connect = () => {
        const controller = new AbortController();
        streams.push(controller);
        return fetch(url(`/api/v1/sites/${SITE}/pages/p/sse`), { headers: as, signal: controller.signal });
      };
      try {
        await assertRateLimited(await spend(BUDGET, connect), 3600);
      } finally {
        for (const stream of streams) stream.abort();
      }
    });

    test("verification confirms", async () => {
      const as = client();
      const confirm = () =>
        fetch(url(`/api/v1/sites/${SITE}/verifications/confirm`), {
          method: "POST",
          headers: { ...as, ...json },
          body: JSON.stringify({ origin: "https://rl.example" }),
        });
      await assertRateLimited(await spend(BUDGET, confirm), 3600);
    });

    test("verification starts: their own hourly budget, before the claim token is checked", async () => {
      const site = await registerSite("203.0.113.1");
      const as = client();
      const start = () =>
        fetch(url(`/api/v1/sites/${site.site_id}/verifications`), {
          method: "POST",
          headers: { ...as, ...json },
          body: JSON.stringify({ origin: "https://rl.example" }),
        });
      await assertRateLimited(await spend(BUDGET, start), 3600);
    });

    test("governance writes: their own hourly budget, after the claim token", async () => {
      const site = await registerSite("203.0.113.3");
      const as = client();
      const retirePage = () =>
        fetch(url(`/api/v1/sites/${site.site_id}/pages/never-commented/retirement`), {
          method: "POST",
          headers: { ...as, "x-service-claim-token": site.claim_token },
        });
      // A page without a room is 404, after authentication: that spends the budget.
      await assertRateLimited(await spend(BUDGET, retirePage), 3600);
    });

    test("claim-token attempts: missing, wrong and valid tokens alike spend the per-minute bucket", async () => {
      const site = await registerSite("203.0.113.2");
      const as = client();
      const tokens = [undefined, "not-the-token", site.claim_token, site.claim_token];
      const issueSecret = (i: number) =>
        fetch(url(`/api/v1/sites/${site.site_id}/secret`), {
          method: "POST",
          headers: { ...as, ...(tokens[i] ? { "x-service-claim-token": tokens[i] } : {}) },
        });
      const refused = await spend(CLAIM_BUDGET, async (i) => {
        const res = await issueSecret(i);
        if (i < CLAIM_BUDGET) assert.equal(res.status, i < 2 ? 403 : 409, `attempt ${i + 1}`);
        return res;
      });
      await assertRateLimited(refused, 60);
    });

    test("operator routes: per minute, invalid tokens included", async () => {
      const as = client();
      const tokens = ["wrong", TEST_OPERATOR_TOKEN, TEST_OPERATOR_TOKEN];
      const list = (i: number) =>
        fetch(url("/api/v1/operator/sites"), {
          method: "QUERY",
          headers: { ...as, ...json, authorization: `Bearer ${tokens[i]}` },
          body: "{}",
        });
      await assertRateLimited(await spend(BUDGET, list), 60);
    });

    test("a refused request is answered at once, without its body being read", async () => {
      const as = client();
      await assertRateLimited(
        await spend(BUDGET, () => fetch(url("/api/v1/sites"), { method: "POST", headers: as })),
        3600,
      );
      const { socket, received } = await rawConnection();
      try {
        const head = (from: string, path: string, length: number) =>
          `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${from}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
        // Headers announcing 900 kB, and no body at all.
        socket.write(head(as["x-forwarded-for"], "/api/v1/sites", 900_000));
        await eventually(async () => received().includes("\r\n\r\n{"), 5_000, "the 429");
        assert.match(received(), /^HTTP\/1\.1 429 /);
        assert.match(received(), /\r\nretry-after: 3600\r\n/i);
        // The connection stays usable: the body, once sent, is discarded, and the next request answered.
        socket.write(Buffer.alloc(900_000, "x"));
        socket.write(
          `GET /api/v1/challenge HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${client()["x-forwarded-for"]}\r\n\r\n`,
        );
        await eventually(async () => responses(received()).length === 2, 5_000, "the next response");
        assert.equal(responses(received())[1], "HTTP/1.1 200");
      } finally {
        socket.destroy();
      }
    });

    test("a wrong claim token is refused before the body is read", async () => {
      const site = (await (await fetch(url("/api/v1/sites"), { method: "POST", headers: client() })).json()) as {
        site_id: string;
      };
      const { socket, received } = await rawConnection();
      try {
        socket.write(
          `POST /api/v1/sites/${site.site_id}/secret HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${client()["x-forwarded-for"]}\r\nX-Service-Claim-Token: wrong\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n`,
        );
        await eventually(async () => received().includes("\r\n\r\n{"), 5_000, "the 403");
        assert.match(received(), /^HTTP\/1\.1 403 /);
        assert.match(received(), /invalid-claim-token/);
      } finally {
        socket.destroy();
      }
    });

    test("an appservice request with a wrong homeserver token is refused before its body is read", async () => {
      const { socket, received } = await rawConnection();
      try {
        socket.write(
          `PUT /_matrix/app/v1/transactions/t1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\nContent-Type: application/json\r\nContent-Length: 16000000\r\n\r\n`,
        );
        await eventually(async () => received().includes("M_FORBIDDEN"), 5_000, "the 403");
        assert.match(received(), /^HTTP\/1\.1 403 /);
      } finally {
        socket.destroy();
      }
    });

    test("an admitted request does wait for its body (the contrast to the above)", async () => {
      const { socket, received } = await rawConnection();
      try {
        socket.write(
          `POST /api/v1/sites HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${client()["x-forwarded-for"]}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n`,
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(received(), "");
        socket.write("{}");
        await eventually(async () => responses(received()).length === 1, 5_000, "the answer");
        assert.equal(responses(received())[0], "HTTP/1.1 201");
      } finally {
        socket.destroy();
      }
    });
  });

  describe("client keys", () => {
    const register = (forwardedFor?: string) =>
      fetch(url("/api/v1/sites"), { method: "POST", headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {} });
    const challenge = (forwardedFor?: string) =>
      fetch(url("/api/v1/challenge"), { headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {} });

    test("two X-Forwarded-For clients have separate budgets", async () => {
      await assertRateLimited(await spend(BUDGET, () => register("192.0.2.10")), 3600);
      assert.equal((await register("192.0.2.11")).status, 201);
    });

    test("the nearest untrusted hop is the key, not a spoofed leftmost one", async () => {
      await assertRateLimited(await spend(BUDGET, (i) => register(`10.9.9.${i}, 192.0.2.20, 127.0.0.1`)), 3600);
    });

    test("one IPv6 client however its address is spelled", async () => {
      await assertRateLimited(await spend(BUDGET, () => register("2001:db8::20")), 3600);
      await assertRateLimited(await register("2001:0DB8:0:0::0020"), 3600);
    });

    test("a malformed X-Forwarded-For falls back to the peer's budget", async () => {
      const last = await spend(BUDGET - 1, () => challenge("not-an-address"));
      assert.equal(last.status, 200);
      await assertRateLimited(await challenge(), 3600);
    });
  });
});

describe("client keys without trusted proxies", () => {
  // Elsewhere than the first service: fetch would reuse pooled connections that stopping it closed.
  useService({ "server.listen_port": 0 });

  test("X-Forwarded-For is ignored: every client shares the peer's budget", async () => {
    const register = (forwardedFor: string) =>
      fetch(url("/api/v1/sites"), { method: "POST", headers: { "x-forwarded-for": forwardedFor } });
    const last = await spend(BUDGET - 1, () => register("192.0.2.30"));
    assert.equal(last.status, 201);
    await assertRateLimited(await register("192.0.2.31"), 3600);
  });
});
