import { ContentKey, RelType } from "../contract/matrix-vocabulary.ts";
// What every Matrix event the service writes for visitors shares: the signed proof block (so
// anyone reading the room can check the visitor signed what it says), the relations of a reply or
// thread, the size limits, the transaction ids. Each operation builds its own event content.

/** The signed proof block written into the Matrix event. */
export interface ProofBlock {
  public_key: string;
  signature: string;
  challenge: string;
  content: string;
  submission_id: string;
}

/** Key of the signed proof block in events the service sends for visitors. */
export const PROOF_KEY = "service.proof";

/**
 * Key of the origin block in events an import sent: the source system and the comment's id
 * there, so a re-run finds what is already in the room (src/features/imports/).
 */
export const IMPORT_KEY = "service.import";

/** Where an imported comment came from. */
export interface ImportOrigin {
  source: string;
  id: string;
}

/** The origin block of an imported event, if it carries one. */
export function importOriginOf(content: Record<string, unknown> | undefined): ImportOrigin | null {
  const origin = content?.[IMPORT_KEY] as { source?: unknown; id?: unknown } | undefined;
  return typeof origin?.source === "string" && typeof origin.id === "string"
    ? { source: origin.source, id: origin.id }
    : null;
}

/** Homeservers refuse events larger than this (the whole PDU, canonical JSON). */
export const MAX_EVENT_BYTES = 65_536;
/** Homeservers refuse longer profile display names (Synapse: MAX_DISPLAYNAME_LEN, in code points). */
export const MAX_DISPLAY_NAME_CODE_POINTS = 256;
/** Room for what the homeserver adds around the content: ids, hashes, signatures, auth and prev events. */
export const EVENT_ENVELOPE_ALLOWANCE = 2_048;

export type Content = Record<string, unknown>;

/** Redaction content: the proof block says which visitor asked for it (and its submission). */
export const redactionContent = (proof: ProofBlock): Content => ({
  reason: "Deleted by its author",
  [PROOF_KEY]: proof,
});

/** The content with m.relates_to for a reply and/or a thread, if it is either. */
export function withRelations(content: Content, replyTo: string | null, threadRoot: string | null): Content {
  const relates = relatesTo(replyTo, threadRoot);
  return relates ? { ...content, [ContentKey.RelatesTo]: relates } : content;
}

/** m.relates_to for a reply and/or a thread (Matrix threads carry a reply fallback). */
export function relatesTo(replyTo: string | null, threadRoot: string | null): Record<string, unknown> | null {
  if (threadRoot) {
    return {
      rel_type: RelType.Thread,
      event_id: threadRoot,
      is_falling_back: replyTo === null,
      [ContentKey.InReplyTo]: { event_id: replyTo ?? threadRoot },
    };
  }
  return replyTo ? { [ContentKey.InReplyTo]: { event_id: replyTo } } : null;
}

/** Bytes an event of this type and content takes, without the homeserver's envelope. */
export const eventBytes = (type: string, content: Content): number =>
  Buffer.byteLength(JSON.stringify({ type, content }), "utf8");

/** The Matrix transaction id of a submission's event: stable, so a resend after a crash dedupes. */
export const submissionTxnId = (submissionId: string): string => `submission.${submissionId}`;

/** The submission id in an event's proof block, if it carries one. */
export function submissionIdOf(content: Record<string, unknown> | undefined): string | null {
  const proof = content?.[PROOF_KEY] as { submission_id?: unknown } | undefined;
  return typeof proof?.submission_id === "string" ? proof.submission_id : null;
}
