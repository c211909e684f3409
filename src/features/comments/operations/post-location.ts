// POST …/location: an MSC3488 location, optionally a reply and/or in a thread.
import { signatureArrays } from "../../../contract/signatures.ts";
import { checkDisplayName, checkEventId, checkLocation } from "../comment-input.ts";
import { PROOF_KEY, withRelations, type Content } from "../../../matrix/events.ts";
import type { ProofBlock } from "../../../matrix/events.ts";
import type { AuthorProofInput, PageInput, VisitorOperation } from "../../../writes/operation.ts";
import { relationRules } from "../../../writes/targets.ts";
import { EventType, MsgType } from "../../../contract/matrix-vocabulary.ts";

const fields = {
  geoUri: "String!",
  description: "String",
  displayName: "String",
  replyTo: "String",
  threadRoot: "String",
} as const;
export type PostLocationInput = PageInput<typeof fields>;

type Checked = Omit<PostLocationInput, keyof AuthorProofInput>;

/** MSC3488 location as an m.room.message. */
export function locationContent(
  geoUri: string,
  description: string | null,
  replyTo: string | null,
  threadRoot: string | null,
  proof: ProofBlock,
): Content {
  const location = { uri: geoUri, ...(description !== null ? { description } : {}) };
  return withRelations(
    {
      msgtype: MsgType.Location,
      body: description ?? `Location: ${geoUri}`,
      geo_uri: geoUri,
      "m.location": location,
      "org.matrix.msc3488.location": location,
      [PROOF_KEY]: proof,
    },
    replyTo,
    threadRoot,
  );
}

export const postLocation: VisitorOperation<PostLocationInput, Checked> = {
  mutation: "postLocation",
  description: "Queues an MSC3488 location.",
  level: "page",
  fields,
  kind: "location.post",
  answer: "submission",
  check(input, errors) {
    checkLocation(input.geoUri, input.description, errors);
    checkDisplayName(input.displayName, errors);
    checkEventId("reply_to", input.replyTo, errors);
    checkEventId("thread_root", input.threadRoot, errors);
    return {
      geoUri: input.geoUri,
      description: input.description,
      displayName: input.displayName,
      replyTo: input.replyTo,
      threadRoot: input.threadRoot,
    };
  },
  signatureArray: (c, s) =>
    signatureArrays.locate(s.siteId, s.pageSlug, c.geoUri, c.replyTo, c.threadRoot, s.challenge),
  proofSubject: (c) => c.geoUri,
  targets: (c) => relationRules(c.replyTo, c.threadRoot),
  effect: (c, s) => ({
    action: "send",
    roomId: null,
    type: EventType.Message,
    content: locationContent(c.geoUri, c.description, c.replyTo, c.threadRoot, s.proof),
  }),
  displayName: (c) => c.displayName,
};
