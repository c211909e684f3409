// Comments: accepting visitor submissions into the durable queue, and reading the projection.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.ts";
import { DomainError, forbidden, notFound, validationError, type FieldError } from "./errors.ts";
import type { IdempotencyScope, RequestInfo } from "./request.ts";
import type { Sites } from "./sites.ts";
import { Challenges } from "./challenges.ts";
import type { IdempotencyStore, StoredResponse } from "./idempotency.ts";
import { authorizeSiteWrite } from "./site-write-auth.ts";
import { checkCommentText, checkDisplayName, checkEventId } from "./comment-input.ts";
import { parseAuthorProof, parsePublicKey, parseSignature, signatureArrays, verifySignature, type ParsedProof } from "../security/author-proof.ts";
import type { CommentPostPayload } from "../queue/payloads.ts";
import { checkPagination } from "./pagination.ts";

export interface PostCommentInput {
  siteId: string;
  pageSlug: string;
  content: string | null;
  media: unknown;
  displayName: string | null;
  replyTo: string | null;
  threadRoot: string | null;
  authorPublicKey: string;
  authorSignature: string;
  challengeResponse: string;
}

export interface SubmissionAccepted {
  submissionId: string;
  replayed: boolean;
}

export interface ListCommentsInput {
  siteId: string;
  pageSlug: string;
  page: number;
  perPage: number;
  order: "asc" | "desc";
  /** Optional personalization: a visitor key and its signature over QUERY_COMMENTS. */
  authorPublicKey: string | null;
  authorSignature: string | null;
}

export class Comments {
  constructor(
    private readonly db: Db,
    private readonly sites: Sites,
    private readonly challenges: Challenges,
    private readonly idempotency: IdempotencyStore,
    private readonly onQueued: () => void,
  ) {}

  /**
   * Every check that can refuse the request runs before the challenge is spent and the
   * submission stored, so a refused request consumes neither (nor its Idempotency-Key).
   */
  async post(input: PostCommentInput, request: RequestInfo | null, scope: IdempotencyScope | null): Promise<SubmissionAccepted> {
    const site = await this.sites.requireWritable(input.siteId, input.pageSlug);
    const { content, proof } = checkPostInput(input);
    authorizeSiteWrite(site, this.sites.secretOf(site), request);

    const author = proof.key.text;
    if (scope) {
      const replay = await this.idempotency.replay(author, scope);
      if (replay) return accepted(replay, true);
    }

    const challenge = Challenges.prefix(proof.challengeResponse);
    const signed = signatureArrays.postComment(input.siteId, input.pageSlug, content, input.replyTo, input.threadRoot, challenge);
    if (!verifySignature(proof.key.bytes, proof.signature, signed)) {
      throw forbidden("invalid-signature", "author_signature does not verify for this comment and key.");
    }
    const checked = await this.challenges.check(proof.challengeResponse);
    await this.checkRelations(input);

    const submissionId = randomUUID();
    const payload: CommentPostPayload = {
      body: content,
      replyTo: input.replyTo,
      threadRoot: input.threadRoot,
      displayName: input.displayName,
      proof: {
        public_key: author,
        signature: proof.signature.toString("base64url"),
        challenge,
        content,
        submission_id: submissionId,
      },
    };
    const response: StoredResponse = { status: 202, body: { submission_id: submissionId } };
    try {
      await this.db.$transaction(async (tx) => {
        await this.challenges.spend(tx, checked);
        await tx.submission.create({
          data: { id: submissionId, kind: "comment.post", siteId: site.id, pageSlug: input.pageSlug, authorPublicKey: author, payload: JSON.stringify(payload) },
        });
        if (scope) await this.idempotency.record(tx, author, scope, response);
      });
    } catch (err) {
      // Lost a race with a concurrent identical request: answer as its replay.
      const replay = scope ? await this.idempotency.replay(author, scope) : null;
      if (replay) return accepted(replay, true);
      throw err;
    }
    this.onQueued();
    return { submissionId, replayed: false };
  }

  /** Replies and thread roots must be live comments of the same page. */
  private async checkRelations(input: PostCommentInput): Promise<void> {
    for (const [field, eventId] of [["reply_to", input.replyTo], ["thread_root", input.threadRoot]] as const) {
      if (eventId === null) continue;
      const target = await this.db.comment.findUnique({ where: { eventId }, select: { siteId: true, pageSlug: true, status: true } });
      if (!target || target.siteId !== input.siteId || target.pageSlug !== input.pageSlug) {
        throw notFound("comment-not-found", `${field} ${eventId} is not a comment on this page.`);
      }
      if (target.status === "redacted") throw new DomainError("comment-redacted", 409, `${field} ${eventId} has been deleted.`);
    }
  }

  async list(input: ListCommentsInput) {
    await this.sites.requireReadable(input.siteId, input.pageSlug);
    checkPagination(input.page, input.perPage);
    const viewer = personalization(input);
    const where = { siteId: input.siteId, pageSlug: input.pageSlug };
    const [total, rows] = await Promise.all([
      this.db.comment.count({ where }),
      this.db.comment.findMany({
        where,
        orderBy: [{ originServerTs: input.order }, { eventId: input.order }],
        skip: (input.page - 1) * input.perPage,
        take: input.perPage,
      }),
    ]);
    return { rows, total, page: input.page, perPage: input.perPage, viewer };
  }
}

/**
 * The verified viewer key of a personalized read (it decides `mine` on reactions), or null
 * for an anonymous one. A malformed or non-verifying proof is an error, not a silent
 * downgrade, so client bugs show.
 */
function personalization(input: ListCommentsInput): string | null {
  if (input.authorPublicKey === null && input.authorSignature === null) return null;
  const key = parsePublicKey(input.authorPublicKey);
  const signature = parseSignature(input.authorSignature);
  if (!key || !signature) {
    throw validationError("Personalization needs both author_public_key and author_signature.", [
      ...(key ? [] : [{ field: "author_public_key", message: "must be a base64url Ed25519 public key (32 bytes)" }]),
      ...(signature ? [] : [{ field: "author_signature", message: "must be a base64url Ed25519 signature (64 bytes)" }]),
    ]);
  }
  if (!verifySignature(key.bytes, signature, signatureArrays.queryComments(input.siteId, input.pageSlug))) {
    throw forbidden("invalid-signature", 'author_signature does not verify over ["QUERY_COMMENTS", site_id, page_slug].');
  }
  return key.text;
}

/** Field validation of a comment post (400 with every problem listed). */
function checkPostInput(input: PostCommentInput): { content: string; proof: ParsedProof } {
  const errors: FieldError[] = [];
  if (input.media !== null && input.media !== undefined) {
    errors.push({ field: "media", message: "media comments are not supported by this version of the service" });
  }
  if (input.content === null) errors.push({ field: "content", message: "is required" });
  else checkCommentText("content", input.content, errors);
  checkDisplayName(input.displayName, errors);
  checkEventId("reply_to", input.replyTo, errors);
  checkEventId("thread_root", input.threadRoot, errors);
  const proof = parseAuthorProof({
    author_public_key: input.authorPublicKey,
    author_signature: input.authorSignature,
    challenge_response: input.challengeResponse,
  });
  if (Array.isArray(proof)) errors.push(...proof);
  if (errors.length > 0 || Array.isArray(proof)) throw validationError("The comment is invalid.", errors);
  return { content: input.content!, proof };
}

const accepted = (stored: StoredResponse, replayed: boolean): SubmissionAccepted => ({
  submissionId: (stored.body as { submission_id: string }).submission_id,
  replayed,
});
