// A visitor client as a browser would be: an Ed25519 key, proof of work and signed writes.
import { createHash } from "node:crypto";
import sodium from "sodium-native";
import { canonicalMessage } from "../../src/security/author-proof.ts";
import { signatureArrays } from "../../src/contract/signatures.ts";
import { solveChallenge } from "../../src/security/pow.ts";

export class Visitor {
  readonly publicKey = Buffer.alloc(sodium.crypto_sign_PUBLICKEYBYTES);
  private readonly secretKey = Buffer.alloc(sodium.crypto_sign_SECRETKEYBYTES);

  constructor(
    readonly baseUrl: string,
    readonly origin: string | null = null,
  ) {
    sodium.crypto_sign_keypair(this.publicKey, this.secretKey);
  }

  get key(): string {
    return this.publicKey.toString("base64url");
  }

  sign(array: readonly unknown[]): string {
    const signature = Buffer.alloc(sodium.crypto_sign_BYTES);
    sodium.crypto_sign_detached(signature, canonicalMessage(array), this.secretKey);
    return signature.toString("base64url");
  }

  /** A solved challenge, by default from the service this visitor writes to. */
  async challenge(from = this.baseUrl): Promise<{ challenge: string; response: string }> {
    const res = await fetch(`${from}/api/v1/challenge`);
    const body = (await res.json()) as { challenge: string; difficulty: number };
    return { challenge: body.challenge, response: solveChallenge(body.challenge, body.difficulty) };
  }

  /** A complete, valid comment body for `siteId`/`pageSlug`. */
  async commentBody(
    siteId: string,
    pageSlug: string,
    content: string,
    extra: {
      reply_to?: string | null;
      thread_root?: string | null;
      display_name?: string;
      challengeFrom?: string;
    } = {},
  ) {
    const { challenge, response } = await this.challenge(extra.challengeFrom);
    const replyTo = extra.reply_to ?? null;
    const threadRoot = extra.thread_root ?? null;
    return {
      content,
      ...(extra.display_name ? { display_name: extra.display_name } : {}),
      reply_to: replyTo,
      thread_root: threadRoot,
      author_public_key: this.key,
      author_signature: this.sign(
        signatureArrays.postComment(siteId, pageSlug, content, replyTo, threadRoot, challenge),
      ),
      challenge_response: response,
    };
  }

  /** The author proof over the array `signed` builds from a fresh challenge prefix. */
  async proof(signed: (challenge: string) => readonly unknown[]) {
    const { challenge, response } = await this.challenge();
    return {
      author_public_key: this.key,
      author_signature: this.sign(signed(challenge)),
      challenge_response: response,
    };
  }

  /** Any write: method, path, JSON body (or raw bytes, as application/octet-stream), the visitor's Origin. */
  async send(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const raw = body instanceof Uint8Array;
    return fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        "content-type": raw ? "application/octet-stream" : "application/json",
        ...(this.origin ? { origin: this.origin } : {}),
        ...headers,
      },
      body: raw ? new Uint8Array(body) : typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  /**
   * A signed media upload request for `bytes`: its path with the query (mime, filename, voice
   * and the author proof over the UPLOAD array) and the body.
   */
  async uploadRequest(
    siteId: string,
    pageSlug: string,
    bytes: Buffer,
    mime: string,
    filename: string | null,
    extra: { voice?: boolean } = {},
  ) {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const proof = await this.proof((ch) => signatureArrays.upload(siteId, pageSlug, mime, filename, sha256, ch));
    const query = new URLSearchParams({
      mime,
      ...(filename !== null ? { filename } : {}),
      ...(extra.voice ? { voice: "true" } : {}),
      ...proof,
    });
    return { path: `/api/v1/sites/${siteId}/pages/${pageSlug}/media?${query}`, body: bytes };
  }

  /** A signed avatar upload request for `bytes`: its path with the query (mime, filename and the proof over UPLOAD_AVATAR) and the body. */
  async avatarRequest(siteId: string, bytes: Buffer, mime: string, filename: string | null = null) {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const proof = await this.proof((ch) => signatureArrays.uploadAvatar(siteId, mime, sha256, ch));
    const query = new URLSearchParams({ mime, ...(filename !== null ? { filename } : {}), ...proof });
    return { path: `/api/v1/sites/${siteId}/visitors/avatar?${query}`, body: bytes };
  }

  /** A signed avatar deletion: its path, with the proof over DELETE_AVATAR in the query. */
  async deleteAvatarPath(siteId: string): Promise<string> {
    const proof = await this.proof((ch) => signatureArrays.deleteAvatar(siteId, ch));
    return `/api/v1/sites/${siteId}/visitors/avatar?${new URLSearchParams(proof)}`;
  }

  async post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(this.origin ? { origin: this.origin } : {}), ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }
}
