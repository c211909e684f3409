// The SDK's parts that need no service: the canonical arrays (as shared/contract.md writes
// them, and byte for byte what the service verifies), identities, proof of work, and the
// retry rules of writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { verifySignature } from "../../src/security/author-proof.ts";
import { signatureArrays as contractArrays } from "../../src/contract/signatures.ts";
import { leadingZeroBits } from "../../src/security/pow.ts";
import {
  CommentsClient,
  Identity,
  fileKeyStore,
  memoryKeyStore,
  signatureArrays,
  solvePow,
  solvePowSync,
} from "../../src/client/index.ts";

const S = "my-blog";
const P = "hello-world";

test("the canonical arrays are the contract's, element for element", () => {
  const cases: Array<[readonly unknown[], string]> = [
    [signatureArrays.queryComments(S, P), `["QUERY_COMMENTS","my-blog","hello-world"]`],
    [
      signatureArrays.postComment(S, P, "Hi", null, null, "ch"),
      `["POST_COMMENT","my-blog","hello-world","Hi",null,null,"ch",1]`,
    ],
    [
      signatureArrays.postComment(S, P, "mxc://x/y", "$r", "$t", "ch"),
      `["POST_COMMENT","my-blog","hello-world","mxc://x/y","$r","$t","ch",1]`,
    ],
    [
      signatureArrays.editComment(S, P, "$e/1", "New", "ch"),
      `["EDIT_COMMENT","my-blog","hello-world","$e/1","New","ch",1]`,
    ],
    [signatureArrays.deleteComment(S, P, "$e", "ch"), `["DELETE_COMMENT","my-blog","hello-world","$e","ch",1]`],
    [
      signatureArrays.createPoll(S, P, "Q?", ["a", "b"], 1, null, "$t", "ch"),
      `["CREATE_POLL","my-blog","hello-world",["Q?",["a","b"],1],null,"$t","ch",1]`,
    ],
    [signatureArrays.react(S, P, "$e", "👍", "ch"), `["REACT","my-blog","hello-world","$e","👍","ch",1]`],
    [signatureArrays.unreact(S, P, "$e", "👍", "ch"), `["UNREACT","my-blog","hello-world","$e","👍","ch"]`],
    [signatureArrays.vote(S, P, "$poll", "1", "ch"), `["VOTE","my-blog","hello-world","$poll","1","ch",1]`],
    [
      signatureArrays.locate(S, P, "geo:1,2", null, null, "ch"),
      `["LOCATE","my-blog","hello-world","geo:1,2",null,null,"ch",1]`,
    ],
    [
      signatureArrays.upload(S, P, "image/png", null, "ab", "ch"),
      `["UPLOAD","my-blog","hello-world","image/png",null,"ab","ch"]`,
    ],
    [signatureArrays.uploadAvatar(S, "image/png", "ab", "ch"), `["UPLOAD_AVATAR","my-blog","image/png","ab","ch"]`],
    [signatureArrays.deleteAvatar(S, "ch"), `["DELETE_AVATAR","my-blog","ch"]`],
  ];
  for (const [array, json] of cases) assert.equal(JSON.stringify(array), json);
  // The service verifies with the very functions the SDK signs with (the contract layer).
  assert.equal(signatureArrays, contractArrays);
});

test("an identity's signatures verify as the service checks them; it survives a key store and moves by export/import", async () => {
  const store = fileKeyStore(join(mkdtempSync(join(tmpdir(), "client-keys-")), "keys.json"));
  const identity = await Identity.load(S, store);
  const array = signatureArrays.react(S, P, "$e", "🎉", "ch");
  const signature = await identity.sign(array);
  assert.match(identity.publicKey, /^[A-Za-z0-9_-]{43}$/);
  assert.match(signature, /^[A-Za-z0-9_-]{86}$/);
  assert.ok(verifySignature(Buffer.from(identity.publicKey, "base64url"), Buffer.from(signature, "base64url"), array));
  assert.equal((await Identity.load(S, store)).publicKey, identity.publicKey, "reloaded from the file");
  assert.notEqual((await Identity.load("other-site", store)).publicKey, identity.publicKey, "one key per site");
  const moved = await Identity.import(S, identity.export(), memoryKeyStore());
  assert.equal(moved.publicKey, identity.publicKey);
});

test("the file key store is readable by its owner only", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "client-keys-")), "keys.json");
  await Identity.load(S, fileKeyStore(file));
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

test("proof of work: the solver's answers have the difficulty's leading zero bits (SHA-256 as node:crypto computes it)", () => {
  for (const difficulty of [0, 4, 8, 12]) {
    const answer = solvePowSync("Zm9vYmFy_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", difficulty);
    assert.match(answer, /^Zm9vYmFy[^|]*\|[a-z0-9]{1,64}$/);
    assert.ok(leadingZeroBits(createHash("sha256").update(answer).digest()) >= difficulty, `${difficulty}: ${answer}`);
  }
});

test("proof of work runs in a worker thread and can be cancelled", async () => {
  const answer = await solvePow("abc", 10);
  assert.ok(leadingZeroBits(createHash("sha256").update(answer).digest()) >= 10);
  const controller = new AbortController();
  const pending = solvePow("abc", 60, controller.signal);
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(pending, { name: "AbortError" });
});

/** A fetch that plays the service: challenges, and writes whose first answer is lost. */
function flakyService(options: { lose: number; status?: number; retryAfter?: string }) {
  const writes: Array<{ method: string; url: string; key: string | null; body: string }> = [];
  let challenges = 0;
  let lost = 0;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    if (url.endsWith("/api/v1/challenge")) {
      return Response.json({
        challenge: `c${++challenges}`,
        difficulty: 2,
        algorithm: "sha256-leading-zero-bits",
        expires_at: new Date().toISOString(),
      });
    }
    const headers = new Headers(init?.headers);
    writes.push({ method: init!.method!, url, key: headers.get("idempotency-key"), body: String(init!.body) });
    if (lost < options.lose) {
      lost++;
      if (options.status)
        return new Response("{}", { status: options.status, headers: { "retry-after": options.retryAfter ?? "0" } });
      throw new TypeError("fetch failed");
    }
    return Response.json({ submission_id: "s1" }, { status: 202 });
  };
  return { fetch: fetch as typeof globalThis.fetch, writes, challenges: () => challenges };
}

test("a write whose answer is lost is retried with the same Idempotency-Key and the same bytes", async () => {
  const service = flakyService({ lose: 2 });
  const client = new CommentsClient({
    baseUrl: "http://svc.test",
    site: S,
    identity: await Identity.load(S, memoryKeyStore()),
    fetch: service.fetch,
    retry: { baseDelayMs: 1 },
  });
  assert.deepEqual(await client.postComment(P, { content: "Once", displayName: "Ada" }), { submission_id: "s1" });
  assert.equal(service.writes.length, 3);
  assert.equal(service.challenges(), 1, "one challenge: a retry is the same request");
  assert.ok(service.writes[0]!.key);
  for (const write of service.writes) assert.deepEqual(write, service.writes[0]);
  const body = JSON.parse(service.writes[0]!.body);
  assert.equal(body.content, "Once");
  assert.equal(body.display_name, "Ada");
  assert.equal(body.challenge_response.split("|")[0], "c1");

  await client.postComment(P, { content: "Twice" });
  assert.notEqual(service.writes[3]!.key, service.writes[0]!.key, "each logical action has its own key");
});

test("429 and 503 are retried after Retry-After when it is short, and reported when it is long", async () => {
  const short = flakyService({ lose: 1, status: 503, retryAfter: "0" });
  const client = new CommentsClient({
    baseUrl: "http://svc.test",
    site: S,
    identity: await Identity.load(S, memoryKeyStore()),
    fetch: short.fetch,
  });
  await client.deleteComment(P, "$e");
  assert.equal(short.writes.length, 2);
  assert.equal(short.writes[1]!.key, short.writes[0]!.key);

  const long = flakyService({ lose: 1, status: 429, retryAfter: "3600" });
  const patient = new CommentsClient({
    baseUrl: "http://svc.test",
    site: S,
    identity: await Identity.load(S, memoryKeyStore()),
    fetch: long.fetch,
  });
  await assert.rejects(patient.editComment(P, "$e", "x"), { name: "ApiError", status: 429, retryAfterMs: 3_600_000 });
  assert.equal(long.writes.length, 1);
});
