// PATCH …/comments/{comment_id}: the author replaces the text of its own text comment.
import { signatureArrays } from "../../../contract/signatures.ts";
import { DomainError } from "../../../core/errors.ts";
import { checkCommentText, checkEventId, checkFormattedBody } from "../comment-input.ts";
import { textBody } from "./post-comment.ts";
import { PROOF_KEY, type Content } from "../../../matrix/events.ts";
import type { ProofBlock } from "../../../matrix/events.ts";
import type { PageInput, VisitorOperation } from "../../../writes/operation.ts";
import { ContentKey, EventType, RelType } from "../../../contract/matrix-vocabulary.ts";

const fields = { commentId: "String!", content: "String", format: "String", formattedBody: "String" } as const;
export type EditCommentInput = PageInput<typeof fields>;

interface Checked {
  commentId: string;
  content: string;
  formattedBody: string | null;
}

/** An edit: m.replace with the new content, and a "* " fallback for clients without edits. */
export function editContent(
  targetEventId: string,
  body: string,
  formattedBody: string | null,
  proof: ProofBlock,
): Content {
  return {
    ...textBody(`* ${body}`, formattedBody === null ? null : `* ${formattedBody}`),
    [ContentKey.NewContent]: textBody(body, formattedBody),
    [ContentKey.RelatesTo]: { rel_type: RelType.Replace, event_id: targetEventId },
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
    checkFormattedBody(input.format, input.formattedBody, errors);
    return { commentId: input.commentId, content: input.content ?? "", formattedBody: input.formattedBody };
  },
  signatureArray: (c, s) => signatureArrays.editComment(s.siteId, s.pageSlug, c.commentId, c.content, s.challenge),
  proofSubject: (c) => c.content,
  targets: (c) => [{ field: "comment_id", eventId: c.commentId, own: true }],
  checkTargets(_c, targets) {
    const type = targets.comment_id!.content.type;
    if (type !== "text")
      throw new DomainError("not-editable", 409, `Only text comments can be edited; this one is ${String(type)}.`);
  },
  effect: (c, s) => ({
    action: "send",
    roomId: s.targets.comment_id!.roomId,
    type: EventType.Message,
    content: editContent(c.commentId, c.content, c.formattedBody, s.proof),
  }),
};
