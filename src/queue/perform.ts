// Performing a queued visitor write: provision what is missing (Space, page room, virtual
// user, membership), then apply the Matrix effect computed when the write was accepted.
import type { Db } from "../db/client.ts";
import type { Submission } from "../db/generated/sqlite/client.ts";
import type { Homeserver } from "../matrix/homeserver.ts";
import type { Provisioner } from "../matrix/provisioning.ts";
import { hasErrcode } from "../matrix/errors.ts";
import { submissionTxnId } from "../matrix/events.ts";
import type { SubmissionPayload } from "./payloads.ts";
import type { SubmissionHandler } from "./worker.ts";

export function submissionPerformer(db: Db, hs: Homeserver, provisioner: Provisioner): SubmissionHandler {
  return async (submission: Submission): Promise<string | null> => {
    // Already projected (sent before a crash, and the homeserver's txn memory may be gone).
    const projected = await db.comment.findFirst({ where: { submissionId: submission.id }, select: { eventId: true } });
    if (projected) return projected.eventId;
    const { displayName, matrix } = JSON.parse(submission.payload) as SubmissionPayload;
    const roomId = matrix.roomId ?? (await provisioner.ensurePageRoom(submission.siteId, submission.pageSlug));
    const userId = await provisioner.ensureVisitor(submission.siteId, submission.authorPublicKey, displayName);
    await provisioner.ensureJoined(userId, roomId);
    const txnId = submissionTxnId(submission.id);
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
  };
}
