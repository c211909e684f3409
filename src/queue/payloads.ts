// What a queued submission carries: the Matrix effect computed in full when the write was
// accepted (so its size was checked before the 202), plus the visitor's profile data.
// Stored as JSON in Submission.payload.

export type MatrixAction =
  /** Send an event; roomId null means the page's room, provisioned on first use. */
  | { action: "send"; roomId: string | null; type: string; content: Record<string, unknown> }
  /** Redact an event (a comment deletion). */
  | { action: "redact"; roomId: string; eventId: string; content: Record<string, unknown> }
  /** Redact the visitor's own annotations with this key on the target, if any. */
  | { action: "unreact"; roomId: string; targetEventId: string; key: string; content: Record<string, unknown> };

export interface SubmissionPayload {
  /** Written to the visitor's Matrix profile before the effect (not signed). */
  displayName: string | null;
  matrix: MatrixAction;
}
