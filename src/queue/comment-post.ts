// Performing a queued comment: provision what is missing, then send the event as the visitor.
import type { Db } from "../db/client.ts";
import type { Submission } from "../db/generated/sqlite/client.ts";
import type { Homeserver } from "../matrix/homeserver.ts";
import type { Provisioner } from "../matrix/provisioning.ts";
import { commentMessageContent, submissionTxnId } from "../matrix/events.ts";
import type { CommentPostPayload } from "./payloads.ts";

export function commentPostHandler(db: Db, hs: Homeserver, provisioner: Provisioner) {
  return async (submission: Submission): Promise<string> => {
    // Already projected (sent before a crash, and the homeserver's txn memory may be gone).
    const projected = await db.comment.findFirst({ where: { submissionId: submission.id }, select: { eventId: true } });
    if (projected) return projected.eventId;
    const payload = JSON.parse(submission.payload) as CommentPostPayload;
    const roomId = await provisioner.ensurePageRoom(submission.siteId, submission.pageSlug);
    const userId = await provisioner.ensureVisitor(submission.siteId, submission.authorPublicKey, payload.displayName);
    await provisioner.ensureJoined(userId, roomId);
    return hs.sendEvent(userId, roomId, "m.room.message", submissionTxnId(submission.id), commentMessageContent(payload));
  };
}
