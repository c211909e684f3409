// PATCH …/comments/{comment_id}: the author replaces the text of its own text comment.
import { DomainError } from "../../../core/errors.ts";
import { checkCommentText, checkEventId } from "../comment-input.ts";
import { PROOF_KEY, type Content } from "../../../matrix/events.ts";
import type { ProofBlock } from "../../../matrix/events.ts";
import type { PageInput, VisitorOperation } from "../../../writes/operation.ts";

const fields = { commentId: "String!", content: "String" } as const;
export type EditCommentInput = PageInput<typeof fields>;

/** The canonical array the author signs (the wire contract). */
export const editCommentArray = (siteId: string, pageSlug: string, commentId: string, content: string, challenge: string) =>
  ["EDIT_COMMENT", siteId, pageSlug, commentId, content, challenge, 1];

interface Checked {
  commentId: string;
  content: string;
}

/** An edit: m.replace with the new content, and a "* " fallback for clients without edits. */
export function editContent(targetEventId: string, body: string, proof: ProofBlock): Content {
  return {
    msgtype: "m.text",
    body: `* ${body}`,
    "m.new_content": { msgtype: "m.text", body },
    "m.relates_to": { rel_type: "m.replace", event_id: targetEventId },
    [PROOF_KEY]: proof,
  };
}

export const editComment: VisitorOperation<EditCommentInput, Checked> = {
  mutation: "editComment",
  description: "Queues an edit of the visitor's own text comment.",
  level: "page",
  fields,
  kind: "comment.edit",
  answer: "submission",
  check(input, errors) {
    checkEventId("comment_id", input.commentId, errors);
    checkCommentText("content", input.content, errors);
    return { commentId: input.commentId, content: input.content ?? "" };
  },
  signatureArray: (c, s) => editCommentArray(s.siteId, s.pageSlug, c.commentId, c.content, s.challenge),
  proofSubject: (c) => c.content,
  targets: (c) => [{ field: "comment_id", eventId: c.commentId, own: true }],
  checkTargets(_c, targets) {
    const type = targets.comment_id!.content.type;
    if (type !== "text") throw new DomainError("not-editable", 409, `Only text comments can be edited; this one is ${String(type)}.`);
  },
  effect: (c, s) => ({ action: "send", roomId: s.targets.comment_id!.roomId, type: "m.room.message", content: editContent(c.commentId, c.content, s.proof) }),
};
