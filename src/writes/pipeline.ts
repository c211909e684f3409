// THE write seam: every visitor write passes these stages, in this order, written once.
//   site exists and is writable → input validation → (site write auth: the route adapter) →
//   idempotency replay → author signature → proof of work → target checks → one transaction
//   (spend the challenge, store the submission, record the idempotent response) → 202 / 204.
// Every stage that can refuse runs before anything is spent or stored, so a refused request
// consumes neither its challenge nor its Idempotency-Key.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.ts";
import { forbidden, validationError, type FieldError } from "../domain/errors.ts";
import type { IdempotencyScope } from "../domain/request.ts";
import type { Sites } from "../domain/sites.ts";
import type { CheckedSite } from "../domain/site-write-auth.ts";
import { Challenges } from "../domain/challenges.ts";
import type { IdempotencyStore, StoredResponse } from "../domain/idempotency.ts";
import { parseAuthorProof, verifySignature } from "../security/author-proof.ts";
import type { ProofBlock, SubmissionPayload } from "../queue/payloads.ts";
import { submissionStamp } from "../queue/claim.ts";
import type { AuthorProofInput, VisitorOperation, WriteScope } from "./operation.ts";
import { resolveTargets } from "./targets.ts";
import { checkEventSize } from "./event-size.ts";

export interface WriteAccepted {
  submissionId: string;
  /** True when this answers a retry of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export class WritePipeline {
  constructor(
    private readonly db: Db,
    private readonly sites: Sites,
    private readonly challenges: Challenges,
    private readonly idempotency: IdempotencyStore,
    private readonly onQueued: () => void,
  ) {}

  async accept<Input extends AuthorProofInput, Checked>(
    operation: VisitorOperation<Input, Checked>,
    input: Input,
    idempotency: IdempotencyScope | null,
    /** The site as the route adapter's site-write gate already loaded and checked it, if it did. */
    gated: CheckedSite | null = null,
  ): Promise<WriteAccepted> {
    const site =
      gated && gated.site.id === input.siteId && gated.pageSlug === input.pageSlug ? gated.site : await this.sites.requireWritable(input.siteId, input.pageSlug);

    const errors: FieldError[] = [];
    const checked = operation.check(input, errors);
    const proof = parseAuthorProof({ author_public_key: input.authorPublicKey, author_signature: input.authorSignature, challenge_response: input.challengeResponse });
    if (Array.isArray(proof)) errors.push(...proof);
    if (errors.length > 0 || Array.isArray(proof)) throw validationError("The request is invalid.", errors);

    const author = proof.key.text;
    if (idempotency) {
      const replay = await this.idempotency.replay(author, idempotency);
      if (replay) return accepted(replay, true);
    }

    const scope: WriteScope = { siteId: site.id, pageSlug: input.pageSlug, challenge: Challenges.prefix(proof.challengeResponse) };
    if (!verifySignature(proof.key.bytes, proof.signature, operation.signatureArray(checked, scope))) {
      throw forbidden("invalid-signature", "author_signature does not verify for this request and key.");
    }
    const spendable = await this.challenges.check(proof.challengeResponse);

    const rules = operation.targets?.(checked) ?? [];
    const targets = await resolveTargets(this.db, scope, author, rules);
    operation.checkTargets?.(checked, targets);

    const submissionId = randomUUID();
    const block: ProofBlock = {
      public_key: author,
      signature: proof.signature.toString("base64url"),
      challenge: scope.challenge,
      content: operation.proofSubject(checked),
      submission_id: submissionId,
    };
    const payload: SubmissionPayload = { displayName: operation.displayName?.(checked) ?? null, matrix: operation.effect(checked, { ...scope, proof: block, targets }) };
    checkEventSize(payload.matrix);

    const response: StoredResponse = operation.answer === "submission" ? { status: 202, body: { submission_id: submissionId } } : { status: 204, body: null };
    try {
      await this.db.$transaction(async (tx) => {
        await this.challenges.spend(tx, spendable);
        await tx.submission.create({
          data: {
            id: submissionId,
            kind: operation.kind,
            siteId: site.id,
            pageSlug: input.pageSlug,
            authorPublicKey: author,
            payload: JSON.stringify(payload),
            // The page's queue order (stamped after the transaction's first write, see submissionStamp).
            createdAt: submissionStamp(),
          },
        });
        if (idempotency) await this.idempotency.record(tx, author, idempotency, response);
      });
    } catch (err) {
      // Lost a race with a concurrent identical request: answer as its replay.
      const replay = idempotency ? await this.idempotency.replay(author, idempotency) : null;
      if (replay) return accepted(replay, true);
      throw err;
    }
    this.onQueued();
    return { submissionId, replayed: false };
  }
}

const accepted = (stored: StoredResponse, replayed: boolean): WriteAccepted => ({
  submissionId: (stored.body as { submission_id: string }).submission_id,
  replayed,
});
