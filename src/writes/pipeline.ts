// THE write seam: every visitor write passes these stages, in this order, written once.
//   site exists and is writable → input validation → (site write auth: the route adapter) →
//   idempotency replay → author signature → moderation (a banned author, a closed page) → proof
//   of work → the operation's lookups → target checks → one transaction (spend the challenge,
//   store the submission — held for review when the moderation says so — record the idempotent
//   response) → 202 / 204. An immediate operation (uploads) performs its effect just before
//   that transaction, which stores its record instead of a submission → 200 with its result.
// Every stage that can refuse runs before anything is spent or stored, so a refused request
// consumes neither its challenge nor its Idempotency-Key. A raw-body write (uploads) runs the
// stages that need no bytes before its body is read (admitBeforeBody), in the same order.
import { randomUUID } from "node:crypto";
import type { Db, Tx } from "../db/client.ts";
import { WriteStore } from "./write-store.ts";
import { SubmissionStore } from "../queue/submission-store.ts";
import { forbidden, validationError, type FieldError } from "../core/errors.ts";
import type { IdempotencyScope } from "../core/request.ts";
import type { CheckedSite } from "../graphql/context.ts";
import { Challenges, type CheckedChallenge } from "./challenge-store.ts";
import type { IdempotencyStore, StoredResponse } from "./idempotency-store.ts";
import { parseAuthorProof, verifySignature, type ParsedProof } from "../security/author-proof.ts";
import type { SubmissionPayload } from "../queue/payloads.ts";
import type { ProofBlock } from "../matrix/events.ts";
import { submissionStamp } from "../queue/claim.ts";
import type {
  AuthorProofInput,
  AuthorScopeOf,
  ImmediateOperation,
  OperationServices,
  SiteProofInput,
  Target,
  VisitorOperation,
  WriteOperation,
} from "./operation.ts";
import { resolveTargets } from "./targets.ts";
import { checkSendable } from "./event-size.ts";

/** Whether a site (and page) accepts writes at all: the sites feature's Sites.requireWritable. */
export interface SiteGate {
  /** The site, when it exists and is writable (the page too, when given); throws otherwise. */
  requireWritable(siteId: string, pageSlug?: string): Promise<{ id: string }>;
}

/** What moderation a write passes (the moderation feature's Moderation). */
export interface WriteModeration {
  /** Refuses (403) a write of an author banned from the site, or to a page closed to new comments. */
  admit(siteId: string, pageSlug: string | undefined, author: string): Promise<void>;
  /** Why a new comment is held for review (stored "held": the worker leaves it), or null. */
  holdReason(
    siteId: string,
    pageSlug: string,
    author: string,
    kind: string,
    payload: SubmissionPayload,
  ): Promise<string | null>;
  /** Records what a held submission's storing says (the dashboards' activity), in the transaction storing it. */
  recordHeld(tx: Tx, submission: HeldRow): Promise<void>;
  /** A submission was stored held (after the commit). */
  heldStored(submission: HeldRow): void;
}

/** A submission stored held, as WriteModeration hears of it. */
export interface HeldRow {
  id: string;
  kind: string;
  siteId: string;
  pageSlug: string;
  authorPublicKey: string;
  payload: string;
  status: string;
  heldReason: string | null;
  reviewedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WriteAccepted {
  submissionId: string;
  /** True when this answers a retry of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

/** An immediate operation's answer (200). */
export interface WritePerformed<Result> {
  result: Result;
  /** True when this answers a retry: the effect was not performed again. */
  replayed: boolean;
}

/** A request that passed every check, with what its tail (queue or perform) needs. */
interface Admitted<Input, Checked> {
  siteId: string;
  checked: Checked;
  scope: AuthorScopeOf<Input>;
  proof: ParsedProof;
  spendable: CheckedChallenge;
  targets: Record<string, Target>;
}

/** An Idempotency-Key replay: the stored answer, and whose write it was. */
interface Replay {
  replay: StoredResponse;
  siteId: string;
  author: string;
}

export class WritePipeline {
  private readonly store: WriteStore;
  private readonly submissions: SubmissionStore;

  constructor(
    db: Db,
    private readonly sites: SiteGate,
    private readonly challenges: Challenges,
    private readonly idempotency: IdempotencyStore,
    private readonly onQueued: () => void,
    private readonly services: OperationServices,
    private readonly moderation: WriteModeration,
  ) {
    this.store = new WriteStore(db);
    this.submissions = new SubmissionStore(db);
  }

  /** A queued write: stored with its Matrix effect for the worker; 202 {submission_id} or 204. */
  async accept<Input extends AuthorProofInput, Checked>(
    operation: VisitorOperation<Input, Checked>,
    input: Input,
    idempotency: IdempotencyScope | null,
    /** The site as the route adapter's site-write gate already loaded and checked it, if it did. */
    gated: CheckedSite | null = null,
  ): Promise<WriteAccepted> {
    const admitted = await this.admit(operation, input, idempotency, gated);
    if ("replay" in admitted) return accepted(admitted.replay, true);
    const { checked, proof, targets } = admitted;
    const scope = { ...admitted.scope, pageSlug: input.pageSlug };

    const submissionId = randomUUID();
    const block: ProofBlock = {
      public_key: scope.author,
      signature: proof.signature.toString("base64url"),
      challenge: scope.challenge,
      content: operation.proofSubject(checked),
      submission_id: submissionId,
    };
    const payload: SubmissionPayload = {
      displayName: operation.displayName?.(checked) ?? null,
      matrix: operation.effect(checked, { ...scope, proof: block, targets }),
    };
    checkSendable(payload.matrix);

    const response: StoredResponse =
      operation.answer === "submission"
        ? { status: 202, body: { submission_id: submissionId } }
        : { status: 204, body: null };
    const heldReason = await this.moderation.holdReason(
      admitted.siteId,
      scope.pageSlug,
      scope.author,
      operation.kind,
      payload,
    );
    const submission = {
      id: submissionId,
      kind: operation.kind,
      siteId: admitted.siteId,
      pageSlug: scope.pageSlug,
      authorPublicKey: scope.author,
      payload: JSON.stringify(payload),
      status: heldReason === null ? "queued" : "held",
      heldReason,
      reviewedBy: null,
    };
    let stored: HeldRow = { ...submission, createdAt: new Date(), updatedAt: new Date() };
    const raced = await this.commit(admitted, idempotency, response, async (tx) => {
      // The page's queue order (stamped after the transaction's first write, see submissionStamp).
      const createdAt = submissionStamp();
      stored = { ...submission, createdAt, updatedAt: createdAt };
      await this.submissions.add(tx, { ...submission, createdAt });
      if (heldReason !== null) await this.moderation.recordHeld(tx, stored);
    });
    if (raced) return accepted(raced, true);
    if (heldReason === null) this.onQueued();
    else this.moderation.heldStored(stored);
    return { submissionId, replayed: false };
  }

  /** An immediate write: its effect runs now, after every check; 200 with its result. */
  async perform<Input extends SiteProofInput, Checked, Result>(
    operation: ImmediateOperation<Input, Checked, Result>,
    input: Input,
    idempotency: IdempotencyScope | null,
    gated: CheckedSite | null = null,
  ): Promise<WritePerformed<Result>> {
    const admitted = await this.admit(operation, input, idempotency, gated);
    if ("replay" in admitted) {
      const result = admitted.replay.body as Result;
      await operation.replayed?.(result, admitted, this.services);
      return { result, replayed: true };
    }
    const performed = await operation.perform(admitted.checked, admitted.scope, this.services);
    const raced = await this.commit(admitted, idempotency, { status: 200, body: performed.result }, (tx) =>
      performed.persist(tx),
    );
    return raced ? { result: raced.body as Result, replayed: true } : { result: performed.result, replayed: false };
  }

  /**
   * The stages a raw-body write (uploads) passes before its body is read, in the pipeline's
   * order: the site, the proof's formats, then the challenge, unless the Idempotency-Key already
   * answered a request of this author, whose replay (which needs the body's hash for its
   * fingerprint) then decides after the body, as it does for any write: a replay is answered
   * whether or not its challenge is still unspent.
   */
  async admitBeforeBody(input: SiteProofInput & { pageSlug?: string }, idempotencyKey: string | null): Promise<void> {
    await this.sites.requireWritable(input.siteId, input.pageSlug);
    const proof = parseProof(input);
    if (Array.isArray(proof)) throw validationError("The request is invalid.", proof);
    if (idempotencyKey !== null && (await this.idempotency.isRecorded(proof.key.text, idempotencyKey))) return;
    await this.challenges.check(proof.challengeResponse);
  }

  /** Every stage that can refuse, in order; a replay of an earlier request stops early. */
  private async admit<Input extends SiteProofInput, Checked>(
    operation: WriteOperation<Input, Checked>,
    input: Input,
    idempotency: IdempotencyScope | null,
    gated: CheckedSite | null,
  ): Promise<Admitted<Input, Checked> | Replay> {
    // A site-level write (avatars) has no page.
    const pageSlug = (input as Partial<AuthorProofInput>).pageSlug;
    const site =
      gated && gated.site.id === input.siteId && gated.pageSlug === pageSlug
        ? gated.site
        : await this.sites.requireWritable(input.siteId, pageSlug);

    const errors: FieldError[] = [];
    const checked = await operation.check(input, errors);
    const proof = parseProof(input);
    if (Array.isArray(proof)) errors.push(...proof);
    if (errors.length > 0 || Array.isArray(proof)) throw validationError("The request is invalid.", errors);

    const author = proof.key.text;
    if (idempotency) {
      const replay = await this.idempotency.replay(author, idempotency);
      if (replay) return { replay, siteId: site.id, author };
    }

    // ScopeOf<Input> is the same page-or-not choice, made by the type of the input.
    const scope = {
      siteId: site.id,
      ...(pageSlug === undefined ? {} : { pageSlug }),
      challenge: Challenges.prefix(proof.challengeResponse),
      author,
    } as AuthorScopeOf<Input>;
    if (!verifySignature(proof.key.bytes, proof.signature, operation.signatureArray(checked, scope))) {
      throw forbidden("invalid-signature", "author_signature does not verify for this request and key.");
    }
    await this.moderation.admit(site.id, pageSlug, author);
    const spendable = await this.challenges.check(proof.challengeResponse);
    const loaded = operation.load ? await operation.load(checked, scope, this.services) : checked;

    const rules = operation.targets?.(loaded) ?? [];
    const targets = await resolveTargets(this.store, scope, author, rules);
    operation.checkTargets?.(loaded, targets);
    return { siteId: site.id, checked: loaded, scope, proof, spendable, targets };
  }

  /**
   * One transaction: spend the challenge, store the write, record the idempotent response.
   * Returns the winner's response when a concurrent identical request committed first.
   */
  private async commit(
    admitted: Admitted<unknown, unknown>,
    idempotency: IdempotencyScope | null,
    response: StoredResponse,
    store: (tx: Tx) => Promise<unknown>,
  ): Promise<StoredResponse | null> {
    const author = admitted.scope.author;
    try {
      await this.store.transaction(async (tx) => {
        await this.challenges.spend(tx, admitted.spendable);
        await store(tx);
        if (idempotency) await this.idempotency.record(tx, author, idempotency, response);
      });
      return null;
    } catch (err) {
      // Lost a race with a concurrent identical request: answer as its replay.
      const replay = idempotency ? await this.idempotency.replay(author, idempotency) : null;
      if (replay) return replay;
      throw err;
    }
  }
}

const parseProof = (input: SiteProofInput) =>
  parseAuthorProof({
    author_public_key: input.authorPublicKey,
    author_signature: input.authorSignature,
    challenge_response: input.challengeResponse,
  });

const accepted = (stored: StoredResponse, replayed: boolean): WriteAccepted => ({
  submissionId: (stored.body as { submission_id: string }).submission_id,
  replayed,
});
