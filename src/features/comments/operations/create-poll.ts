// POST …/polls: an MSC3381 poll (single choice), optionally a reply and/or in a thread.
import { signatureArrays } from "../../../contract/signatures.ts";
import { checkDisplayName, checkEventId, checkPoll } from "../comment-input.ts";
import { PROOF_KEY, withRelations, type Content } from "../../../matrix/events.ts";
import type { ProofBlock } from "../../../matrix/events.ts";
import type { PageInput, VisitorOperation } from "../../../writes/operation.ts";
import { relationRules } from "../../../writes/targets.ts";
import { EventType } from "../../../contract/matrix-vocabulary.ts";

const fields = {
  question: "String!",
  options: "[String!]!",
  maxSelections: "Int",
  displayName: "String",
  replyTo: "String",
  threadRoot: "String",
} as const;
export type CreatePollInput = PageInput<typeof fields>;

interface Checked {
  question: string;
  options: string[];
  maxSelections: number;
  displayName: string | null;
  replyTo: string | null;
  threadRoot: string | null;
}

/**
 * MSC3381 poll start as an m.room.message; the fallback body is the question and numbered
 * options. Nothing else repeats the question, so a 500-cluster question still fits one event.
 */
export function pollStartContent(
  question: string,
  options: string[],
  maxSelections: number,
  replyTo: string | null,
  threadRoot: string | null,
  proof: ProofBlock,
): Content {
  const fallback = [question, ...options.map((option, i) => `${i + 1}. ${option}`)].join("\n");
  return withRelations(
    {
      msgtype: EventType.PollStartUnstable,
      body: fallback,
      "org.matrix.msc3381.poll.start": {
        question: { "org.matrix.msc1767.text": question },
        kind: "org.matrix.msc3381.poll.disclosed",
        max_selections: maxSelections,
        answers: options.map((text, i) => ({ id: String(i), "org.matrix.msc1767.text": text })),
      },
      [PROOF_KEY]: proof,
    },
    replyTo,
    threadRoot,
  );
}

export const createPoll: VisitorOperation<CreatePollInput, Checked> = {
  mutation: "createPoll",
  description: "Queues an MSC3381 poll.",
  level: "page",
  fields,
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
  signatureArray: (c, s) =>
    signatureArrays.createPoll(
      s.siteId,
      s.pageSlug,
      c.question,
      c.options,
      c.maxSelections,
      c.replyTo,
      c.threadRoot,
      s.challenge,
    ),
  // The canonical poll payload, exactly as signed.
  proofSubject: (c) => JSON.stringify([c.question, c.options, c.maxSelections]),
  targets: (c) => relationRules(c.replyTo, c.threadRoot),
  effect: (c, s) => ({
    action: "send",
    roomId: null,
    type: EventType.Message,
    content: pollStartContent(c.question, c.options, c.maxSelections, c.replyTo, c.threadRoot, s.proof),
  }),
  displayName: (c) => c.displayName,
};
