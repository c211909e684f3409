// POST …/comments: a text comment, optionally a reply and/or in a thread.
import { checkCommentText, checkDisplayName, checkEventId } from "../../domain/comment-input.ts";
import { textMessageContent } from "../../matrix/events.ts";
import { signatureArrays } from "../../security/author-proof.ts";
import type { AuthorProofInput, VisitorOperation } from "../operation.ts";
import { relationRules } from "../targets.ts";

export interface PostCommentInput extends AuthorProofInput {
  content: string | null;
  media: unknown;
  displayName: string | null;
  replyTo: string | null;
  threadRoot: string | null;
}

interface Checked {
  content: string;
  displayName: string | null;
  replyTo: string | null;
  threadRoot: string | null;
}

export const postComment: VisitorOperation<PostCommentInput, Checked> = {
  kind: "comment.post",
  answer: "submission",
  check(input, errors) {
    if (input.media !== null && input.media !== undefined) {
      errors.push({ field: "media", message: "media comments are not supported by this version of the service" });
    }
    checkCommentText("content", input.content, errors);
    checkDisplayName(input.displayName, errors);
    checkEventId("reply_to", input.replyTo, errors);
    checkEventId("thread_root", input.threadRoot, errors);
    return { content: input.content ?? "", displayName: input.displayName, replyTo: input.replyTo, threadRoot: input.threadRoot };
  },
  signatureArray: (c, s) => signatureArrays.postComment(s.siteId, s.pageSlug, c.content, c.replyTo, c.threadRoot, s.challenge),
  proofSubject: (c) => c.content,
  targets: (c) => relationRules(c.replyTo, c.threadRoot),
  effect: (c, s) => ({ action: "send", roomId: null, type: "m.room.message", content: textMessageContent(c.content, c.replyTo, c.threadRoot, s.proof) }),
  displayName: (c) => c.displayName,
};
