// What a queued submission carries, per kind. Stored as JSON in Submission.payload.

/** The signed proof block written into the Matrix event. */
export interface ProofBlock {
  public_key: string;
  signature: string;
  challenge: string;
  content: string;
  submission_id: string;
}

export interface CommentPostPayload {
  body: string;
  replyTo: string | null;
  threadRoot: string | null;
  displayName: string | null;
  proof: ProofBlock;
}
