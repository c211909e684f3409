// Performing a queued visitor write: provision what is missing (Space, page room, virtual
// user, membership), then apply the Matrix effect computed when the write was accepted.
import type { Submission } from "../db/client.ts";
import type { Homeserver } from "../matrix/homeserver.ts";
import { hasErrcode } from "../matrix/errors.ts";
import { submissionTxnId } from "../matrix/events.ts";
import type { MatrixAction, SubmissionPayload } from "./payloads.ts";
import type { SubmissionHandler } from "./worker.ts";
import type { SubmissionStore } from "./submission-store.ts";

/** How far back (pages of 100 of the sender's events) a resend looks for its earlier event. */
const RESEND_LOOKBACK_PAGES = 5;

/** What a submission needs in place before its effect (the rooms feature's Provisioner). */
export interface SubmissionProvisioning {
  ensurePageRoom(siteId: string, pageSlug: string): Promise<string>;
  ensureVisitor(siteId: string, publicKey: string, displayName: string | null): Promise<string>;
  ensureJoined(userId: string, roomId: string): Promise<void>;
  /** Forgets a remembered join (the homeserver refused the user); true when there was one. */
  forgetJoined(userId: string, roomId: string): boolean;
}

export function submissionPerformer(
  submissions: SubmissionStore,
  hs: Homeserver,
  provisioner: SubmissionProvisioning,
): SubmissionHandler {
  return async (submission: Submission): Promise<string | null> => {
    const { displayName, matrix } = JSON.parse(submission.payload) as SubmissionPayload;
    const [roomId, userId] = await Promise.all([
      matrix.roomId ?? provisioner.ensurePageRoom(submission.siteId, submission.pageSlug),
      provisioner.ensureVisitor(submission.siteId, submission.authorPublicKey, displayName),
    ]);
    // The claim counts attempts before anything is sent, so attempts > 1 means an earlier one
    // may have reached the homeserver; its transaction id dedupes only until Synapse restarts.
    if (submission.attempts > 1 && matrix.action !== "unreact") {
      const earlier = await earlierEvent(submissions, hs, submission.id, userId, roomId);
      if (earlier) return earlier;
    }
    await provisioner.ensureJoined(userId, roomId);
    const effect = () => applyEffect(hs, userId, roomId, submissionTxnId(submission.id), matrix);
    try {
      return await effect();
    } catch (err) {
      // Refused although this process saw the user join: it has been removed since. Check the
      // membership again (and rejoin where allowed) once.
      if (hasErrcode(err, "M_FORBIDDEN") && provisioner.forgetJoined(userId, roomId)) {
        await provisioner.ensureJoined(userId, roomId);
        return effect();
      }
      throw err;
    }
  };
}

/** The event an earlier attempt of this submission produced: from the projection, else the room's timeline. */
async function earlierEvent(
  submissions: SubmissionStore,
  hs: Homeserver,
  submissionId: string,
  userId: string,
  roomId: string,
): Promise<string | null> {
  return (
    (await submissions.projectedEventId(submissionId)) ??
    hs.findSubmissionEvent(userId, roomId, submissionId, RESEND_LOOKBACK_PAGES)
  );
}

async function applyEffect(
  hs: Homeserver,
  userId: string,
  roomId: string,
  txnId: string,
  matrix: MatrixAction,
): Promise<string | null> {
  switch (matrix.action) {
    case "send":
      try {
        return await hs.sendEvent(userId, roomId, matrix.type, txnId, matrix.content);
      } catch (err) {
        // Reacting twice with the same key is a success (the API promises idempotent reactions).
        if (hasErrcode(err, "M_DUPLICATE_ANNOTATION")) return null;
        throw err;
      }
    case "redact":
      return hs.redactEvent(userId, roomId, matrix.eventId, txnId, matrix.content);
    case "unreact": {
      const own = await hs.ownAnnotations(userId, roomId, matrix.targetEventId, matrix.key);
      let first: string | null = null;
      for (const [i, eventId] of own.entries()) {
        const redaction = await hs.redactEvent(userId, roomId, eventId, `${txnId}.${i}`, matrix.content);
        first ??= redaction;
      }
      return first;
    }
  }
}
