// POST …/polls/{poll_id}/votes: an MSC3381 response (204); a newer vote replaces the earlier one.
import { signatureArrays } from "../../../contract/signatures.ts";
import { validationError } from "../../../core/errors.ts";
import { checkEventId } from "../comment-input.ts";
import { PROOF_KEY, type Content } from "../../../matrix/events.ts";
import type { ProofBlock } from "../../../matrix/events.ts";
import type { PageInput, VisitorOperation } from "../../../writes/operation.ts";
import { ContentKey, EventType, RelType } from "../../../contract/matrix-vocabulary.ts";

const fields = { pollId: "String!", optionId: "String!" } as const;
export type VoteInput = PageInput<typeof fields>;

/** An MSC3381 vote, in the stable and the unstable shape. */
export function pollResponseContent(pollEventId: string, optionId: string, proof: ProofBlock): Content {
  return {
    [ContentKey.RelatesTo]: { rel_type: RelType.Reference, event_id: pollEventId },
    "m.selections": [optionId],
    "org.matrix.msc3381.poll.response": { answers: [optionId] },
    [PROOF_KEY]: proof,
  };
}

export const vote: VisitorOperation<VoteInput, { pollId: string; optionId: string }> = {
  mutation: "vote",
  description: "Queues a vote on a poll (a newer vote replaces the earlier one).",
  level: "page",
  fields,
  kind: "poll.vote",
  answer: "no-content",
  check(input, errors) {
    checkEventId("poll_id", input.pollId, errors);
    return { pollId: input.pollId, optionId: input.optionId };
  },
  signatureArray: (c, s) => signatureArrays.vote(s.siteId, s.pageSlug, c.pollId, c.optionId, s.challenge),
  proofSubject: (c) => c.optionId,
  targets: (c) => [{ field: "poll_id", eventId: c.pollId, poll: true }],
  checkTargets(c, targets) {
    const options = (targets.poll_id!.content.options ?? []) as Array<{ id: string }>;
    if (!options.some((o) => o.id === c.optionId)) {
      throw validationError("option_id is not an answer of this poll.", [
        { field: "option_id", message: `must be one of ${options.map((o) => o.id).join(", ")}` },
      ]);
    }
  },
  effect: (c, s) => ({
    action: "send",
    roomId: s.targets.poll_id!.roomId,
    type: EventType.PollResponse,
    content: pollResponseContent(c.pollId, c.optionId, s.proof),
  }),
};
