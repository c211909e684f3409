// Every visitor-write route of the route table, through every refusal the write seam and the
// route adapter give: each route gets a valid request built for it, then variants that must
// be refused with each problem code the route declares (and nothing queued by them).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { apiRoutes } from "../../src/app/api-document.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { signRequest } from "../../src/security/request-signature.ts";
import { eventually, startTestService, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { matrixRequest, registerMatrixUser } from "../support/matrix.ts";
import { png } from "../support/media-fixtures.ts";
import { listComments, whenListed } from "../support/reads.ts";

const enc = encodeURIComponent;
const SITE = uniqueSiteId("refuse");
const STRICT = uniqueSiteId("refuse-strict");
const RETIRED = uniqueSiteId("refuse-retired");
const SECRET = "refusal-secret";
const PAGE = "page";

interface Targets {
  comment: string;
  poll: string;
  redacted: string;
  native: string;
}

/**
 * A valid request of each visitor-write route: its path and a freshly signed body (raw bytes
 * for raw-body routes, none for routes without a body; both carry the author proof in the
 * path's query).
 */
type Built = { path: string; body: Record<string, unknown> | Buffer | undefined };
type Build = (v: Visitor, site: string, t: { comment: string; poll: string }) => Promise<Built>;

/** The request with another author_signature, wherever the route carries its proof. */
const withSignature = ({ path, body }: Built, signature: string): Built =>
  body === undefined || Buffer.isBuffer(body)
    ? { path: path.replace(/author_signature=[^&]*/, `author_signature=${signature}`), body }
    : { path, body: { ...body, author_signature: signature } };

/** Uploads differ in their bytes, so two requests never share an idempotency fingerprint. */
let uploads = 0;

const page = (site: string) => `/api/v1/sites/${site}/pages/${PAGE}`;
const BUILDERS: Record<string, Build> = {
  postComment: async (v, site, t) => ({
    path: `${page(site)}/comments`,
    body: await v.commentBody(site, PAGE, "hello", { reply_to: t.comment }),
  }),
  editComment: async (v, site, t) => ({
    path: `${page(site)}/comments/${enc(t.comment)}`,
    body: {
      content: "edited",
      ...(await v.proof((ch) => signatureArrays.editComment(site, PAGE, t.comment, "edited", ch))),
    },
  }),
  editCommentByBody: async (v, site, t) => ({
    path: `${page(site)}/comments`,
    body: {
      comment_id: t.comment,
      content: "edited",
      ...(await v.proof((ch) => signatureArrays.editComment(site, PAGE, t.comment, "edited", ch))),
    },
  }),
  deleteComment: async (v, site, t) => ({
    path: `${page(site)}/comments/${enc(t.comment)}`,
    body: await v.proof((ch) => signatureArrays.deleteComment(site, PAGE, t.comment, ch)),
  }),
  deleteCommentByQuery: async (v, site, t) => ({
    path: `${page(site)}/comments?comment_id=${enc(t.comment)}`,
    body: await v.proof((ch) => signatureArrays.deleteComment(site, PAGE, t.comment, ch)),
  }),
  addReaction: async (v, site, t) => ({
    path: `${page(site)}/comments/${enc(t.comment)}/reactions`,
    body: { key: "👍", ...(await v.proof((ch) => signatureArrays.react(site, PAGE, t.comment, "👍", ch))) },
  }),
  removeReaction: async (v, site, t) => ({
    path: `${page(site)}/comments/${enc(t.comment)}/reactions/${enc("👍")}`,
    body: await v.proof((ch) => signatureArrays.unreact(site, PAGE, t.comment, "👍", ch)),
  }),
  createPoll: async (v, site, t) => ({
    path: `${page(site)}/polls`,
    body: {
      question: "Q?",
      options: ["a", "b"],
      reply_to: t.comment,
      ...(await v.proof((ch) => signatureArrays.createPoll(site, PAGE, "Q?", ["a", "b"], 1, t.comment, null, ch))),
    },
  }),
  vote: async (v, site, t) => ({
    path: `${page(site)}/polls/${enc(t.poll)}/votes`,
    body: { option_id: "0", ...(await v.proof((ch) => signatureArrays.vote(site, PAGE, t.poll, "0", ch))) },
  }),
  postLocation: async (v, site, t) => ({
    path: `${page(site)}/location`,
    body: {
      geo_uri: "geo:1,2",
      reply_to: t.comment,
      ...(await v.proof((ch) => signatureArrays.locate(site, PAGE, "geo:1,2", t.comment, null, ch))),
    },
  }),
  uploadMedia: async (v, site) => v.uploadRequest(site, PAGE, png(1 + ++uploads, 1), "image/png", "p.png"),
  uploadAvatar: async (v, site) => v.avatarRequest(site, png(1 + ++uploads, 1), "image/png"),
  deleteAvatar: async (v, site) => ({ path: await v.deleteAvatarPath(site), body: undefined }),
};

/** Which target each route's own target codes are provoked with. */
const TARGET_FIELD: Record<string, "comment" | "poll"> = { vote: "poll" };

const writeRoutes = apiRoutes.filter((r) => r.auth === "author-proof" || r.auth === "site-write");

describe("every visitor-write route refuses with each code it declares", () => {
  let service: TestService;
  let alice: Visitor;
  let bob: Visitor;
  let targets: Targets;
  let fresh: () => Promise<string>;
  let key = 0;

  const send = (
    v: Visitor,
    route: (typeof writeRoutes)[number],
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) =>
    v.send(route.method, path, body, {
      ...(route.idempotencyKey ? { "idempotency-key": `k-${++key}` } : {}),
      ...headers,
    });

  async function expectCode(res: Response, status: number, code: string, what: string) {
    const body = (await res.json().catch(() => null)) as { code?: string } | null;
    assert.equal(`${res.status} ${body?.code}`, `${status} ${code}`, what);
  }

  before(async () => {
    service = await startTestService({
      sites: {
        [SITE]: { origins: [TEST_ORIGIN] },
        [STRICT]: { origins: [TEST_ORIGIN], secret: SECRET },
        [RETIRED]: { origins: [TEST_ORIGIN] },
      },
    });
    await service.services.db.site.update({ where: { id: RETIRED }, data: { status: "retiring" } });
    alice = new Visitor(service.url, TEST_ORIGIN);
    bob = new Visitor(service.url, TEST_ORIGIN);
    const list = async () => (await listComments(service, SITE, PAGE, { per_page: 100 })).data;
    const posted = async (res: Response) => (await whenListed(res, list, "a target")).event_id as string;
    const comment = await posted(
      await alice.post(`${page(SITE)}/comments`, await alice.commentBody(SITE, PAGE, "target"), {
        "idempotency-key": "t1",
      }),
    );
    const poll = await posted(
      await alice.send(
        "POST",
        `${page(SITE)}/polls`,
        {
          question: "P?",
          options: ["x", "y"],
          ...(await alice.proof((ch) => signatureArrays.createPoll(SITE, PAGE, "P?", ["x", "y"], 1, null, null, ch))),
        },
        { "idempotency-key": "t2" },
      ),
    );
    const redacted = await posted(
      await alice.post(`${page(SITE)}/comments`, await alice.commentBody(SITE, PAGE, "doomed"), {
        "idempotency-key": "t3",
      }),
    );
    const del = await alice.send(
      "DELETE",
      `${page(SITE)}/comments/${enc(redacted)}`,
      await alice.proof((ch) => signatureArrays.deleteComment(SITE, PAGE, redacted, ch)),
      { "idempotency-key": "t4" },
    );
    assert.equal(del.status, 202);
    await eventually(
      async () => (await list()).find((m) => m.event_id === redacted && m.status === "redacted"),
      30_000,
      "the redacted target",
    );
    const roomId = (await list())[0].room_id as string;
    const user = await registerMatrixUser(`refusal${Math.random().toString(36).slice(2, 8)}`);
    await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, user.token, {});
    const sent = await matrixRequest<{ event_id: string }>(
      "PUT",
      `/_matrix/client/v3/rooms/${enc(roomId)}/send/m.room.message/n1`,
      user.token,
      { msgtype: "m.text", body: "native" },
    );
    await eventually(
      async () => (await list()).find((m) => m.event_id === sent.event_id),
      30_000,
      "the Matrix-native target",
    );
    targets = { comment, poll, redacted, native: sent.event_id };
    fresh = async () =>
      posted(
        await alice.post(`${page(SITE)}/comments`, await alice.commentBody(SITE, PAGE, "fresh"), {
          "idempotency-key": `f-${++key}`,
        }),
      );
  });
  after(() => service?.stop());

  test("the table's visitor-write routes all have a request builder here", () => {
    assert.deepEqual(
      writeRoutes.map((r) => r.operationId).filter((id) => !BUILDERS[id]),
      [],
    );
  });

  for (const route of writeRoutes) {
    test(`${route.method} ${route.path} (${route.operationId})`, async () => {
      const build = BUILDERS[route.operationId]!;
      const declared = new Set(Object.values(route.problems).flat());
      const queued = () => service.services.db.submission.count();
      const base = { comment: targets.comment, poll: targets.poll };
      const before = await queued();

      {
        // Without a body, without its content: a route without one, without the proof in its query.
        const { path } = await build(alice, SITE, base);
        const empty = route.rawBody
          ? { path, body: Buffer.alloc(0) }
          : route.body
            ? { path, body: {} }
            : { path: path.split("?")[0]!, body: undefined };
        await expectCode(await send(alice, route, empty.path, empty.body), 400, "validation-error", "an empty body");
      }
      if (route.idempotencyKey) {
        const { path, body } = await build(alice, SITE, base);
        await expectCode(
          await alice.send(route.method, path, body),
          400,
          "idempotency-key-required",
          "no Idempotency-Key",
        );
        await expectCode(
          await alice.send(route.method, path, body, { "idempotency-key": "not valid" }),
          400,
          "invalid-idempotency-key",
          "a key with a space",
        );
      }
      if (route.auth === "site-write") {
        const { path, body } = await build(alice, SITE, base);
        await expectCode(
          await send(new Visitor(service.url, "https://evil.example"), route, path, body),
          403,
          "origin-not-allowed",
          "a foreign Origin",
        );
        const strict = await build(alice, STRICT, base);
        await expectCode(
          await send(alice, route, strict.path, strict.body),
          403,
          "signature-required",
          "no HMAC headers on a secret-mode site",
        );
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = signRequest("wrong-secret", {
          method: route.method,
          target: strict.path,
          body: Buffer.from(JSON.stringify(strict.body)),
          timestamp,
        });
        const hmac = { "x-service-timestamp": timestamp, "x-service-signature": signature };
        await expectCode(
          await send(alice, route, strict.path, strict.body, hmac),
          403,
          "invalid-request-signature",
          "an HMAC with the wrong secret",
        );
      }
      {
        const { path, body } = withSignature(await build(alice, SITE, base), alice.sign(["something else"]));
        await expectCode(
          await send(alice, route, path, body),
          403,
          "invalid-signature",
          "a signature over another array",
        );
      }
      await expectCode(
        await send(
          alice,
          route,
          (await build(alice, uniqueSiteId("nowhere"), base)).path,
          (await build(alice, uniqueSiteId("nowhere"), base)).body,
        ),
        404,
        "site-not-found",
        "an unknown site",
      );
      const retired = await build(alice, RETIRED, base);
      await expectCode(await send(alice, route, retired.path, retired.body), 410, "site-retired", "a retiring site");
      assert.equal(await queued(), before, "no refused request queued anything");

      // Target rules, where the route declares them.
      const field = TARGET_FIELD[route.operationId] ?? "comment";
      if (declared.has("comment-not-found")) {
        const { path, body } = await build(alice, SITE, { ...base, [field]: "$missing:localhost" });
        await expectCode(await send(alice, route, path, body), 404, "comment-not-found", "a missing target");
      }
      if (declared.has("comment-redacted")) {
        const { path, body } = await build(alice, SITE, { ...base, [field]: targets.redacted });
        await expectCode(await send(alice, route, path, body), 409, "comment-redacted", "a redacted target");
      }
      if (declared.has("not-author")) {
        const { path, body } = await build(bob, SITE, base);
        await expectCode(await send(bob, route, path, body), 403, "not-author", "another visitor's comment");
      }
      if (declared.has("not-manageable")) {
        const { path, body } = await build(alice, SITE, { ...base, comment: targets.native });
        await expectCode(await send(alice, route, path, body), 403, "not-manageable", "a Matrix account's comment");
      }
      if (declared.has("not-editable")) {
        const { path, body } = await build(alice, SITE, { ...base, comment: targets.poll });
        await expectCode(await send(alice, route, path, body), 409, "not-editable", "a poll");
      }
      if (declared.has("poll-not-found")) {
        const { path, body } = await build(alice, SITE, { ...base, poll: targets.comment });
        await expectCode(await send(alice, route, path, body), 404, "poll-not-found", "a text comment");
      }
      assert.equal(await queued(), before, "no refused request queued anything");

      // A valid request succeeds; then its spent challenge, and for keyed routes its key with another request.
      // A deletion gets a comment of its own, so the shared target stays for the other routes.
      const deletes = route.method === "DELETE" && declared.has("not-author");
      const ok = await build(alice, SITE, deletes ? { ...base, comment: await fresh() } : base);
      const keyHeader = { "idempotency-key": `ok-${route.operationId}` };
      const first = await alice.send(route.method, ok.path, ok.body, route.idempotencyKey ? keyHeader : {});
      assert.equal(first.status, route.responses[202] ? 202 : route.responses[200] ? 200 : 204);
      await expectCode(await send(alice, route, ok.path, ok.body), 403, "invalid-PoW", "a spent challenge");
      if (route.idempotencyKey) {
        const other = await build(alice, SITE, base);
        await expectCode(
          await alice.send(route.method, other.path, other.body, keyHeader),
          409,
          "idempotency-key-reused",
          "the key with another request",
        );
      }
    });
  }
});
