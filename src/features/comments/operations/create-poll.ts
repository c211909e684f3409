// POST …/polls: an MSC3381 poll (single choice), optionally a reply and/or in a thread.
import { checkDisplayName, checkEventId, checkPoll } from "../comment-input.ts";
import { pollStartContent } from "../../../matrix/events.ts";
import { signatureArrays } from "../../../security/author-proof.ts";
import type { AuthorProofInput, VisitorOperation } from "../../../writes/operation.ts";
import { relationRules } from "../../../writes/targets.ts";

export interface CreatePollInput extends AuthorProofInput {
  question: string;
  options: string[];
  maxSelections: number | null;
  displayName: string | null;
  replyTo: string | null;
  threadRoot: string | null;
}

interface Checked {
  question: string;
  options: string[];
  maxSelections: number;
  displayName: string | null;
  replyTo: string | null;
  threadRoot: string | null;
}

export const createPoll: VisitorOperation<CreatePollInput, Checked> = {
  kind: "poll.create",
  answer: "submission",
  check(input, errors) {
    const maxSelections = input.maxSelections ?? 1;
    checkPoll(input.question, input.options, maxSelections, errors);
    checkDisplayName(input.displayName, errors);
    checkEventId("reply_to", input.replyTo, errors);
    checkEventId("thread_root", input.threadRoot, errors);
    return { ...input, maxSelections };
  },
  signatureArray: (c, s) => signatureArrays.createPoll(s.siteId, s.pageSlug, c.question, c.options, c.maxSelections, c.replyTo, c.threadRoot, s.challenge),
  // The canonical poll payload, exactly as signed.
  proofSubject: (c) => JSON.stringify([c.question, c.options, c.maxSelections]),
  targets: (c) => relationRules(c.replyTo, c.threadRoot),
  effect: (c, s) => ({
    action: "send",
    roomId: null,
    type: "m.room.message",
    content: pollStartContent(c.question, c.options, c.maxSelections, c.replyTo, c.threadRoot, s.proof),
  }),
  displayName: (c) => c.displayName,
};
