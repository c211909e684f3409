// What a visitor write operation declares: only what is its own. Everything else (site,
// idempotency, signature, proof of work, target lookup, the transaction) is the pipeline's.
import type { FieldError } from "../domain/errors.ts";
import type { MatrixAction } from "../queue/payloads.ts";
import type { ProofBlock } from "../queue/payloads.ts";

/** The author proof every visitor write carries. */
export interface AuthorProofInput {
  siteId: string;
  pageSlug: string;
  authorPublicKey: string;
  authorSignature: string;
  challengeResponse: string;
}

/** What an operation's declarations are computed from besides its own input. */
export interface WriteScope {
  siteId: string;
  pageSlug: string;
  /** The challenge prefix (the part of challenge_response before `|`). */
  challenge: string;
}

/** A comment an operation points at, and what it must be. */
export interface TargetRule {
  /** The input field naming it (for error messages). */
  field: string;
  eventId: string | null;
  /** Must be the author's own visitor comment (edit, delete). */
  own?: boolean;
  /** A redacted target is acceptable (unreact: the reaction is gone anyway). */
  allowRedacted?: boolean;
  /** Must be able to root a thread: not itself inside one. */
  threadRoot?: boolean;
  /** Must be a poll. */
  poll?: boolean;
}

/** A target comment as the rules and the Matrix effect see it. */
export interface Target {
  eventId: string;
  roomId: string;
  status: string;
  authorType: string;
  authorPublicKey: string | null;
  threadRoot: string | null;
  content: Record<string, unknown>;
}

export interface EffectScope extends WriteScope {
  proof: ProofBlock;
  /** Resolved targets by field name (only the rules whose eventId was set). */
  targets: Record<string, Target>;
}

export interface VisitorOperation<Input extends AuthorProofInput, Checked> {
  /** Submission kind, e.g. "comment.edit" (shown to dashboards, keys the worker's logs). */
  kind: string;
  /** 202 {submission_id}, or 204 for annotations (reactions, votes). */
  answer: "submission" | "no-content";
  /** Field validation beyond the JSON schema; pushes every problem, returns the normalized input. */
  check(input: Input, errors: FieldError[]): Checked;
  /** The canonical array the author signs. */
  signatureArray(checked: Checked, scope: WriteScope): unknown[];
  /** The signed subject repeated in the event's proof block (`content`). */
  proofSubject(checked: Checked): string;
  /** The comments it points at. */
  targets?(checked: Checked): TargetRule[];
  /** Checks that need the resolved targets (e.g. a vote's option must exist in the poll). */
  checkTargets?(checked: Checked, targets: Record<string, Target>): void;
  /** Its Matrix effect, computed in full before the 202 (so its size is known). */
  effect(checked: Checked, scope: EffectScope): MatrixAction;
  /** Presentation data written to the virtual user's profile (not signed). */
  displayName?(checked: Checked): string | null;
}
