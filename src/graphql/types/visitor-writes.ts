// Visitor write mutations: one per operation, each a thin door into the write pipeline
// (src/writes/pipeline.ts), which runs every check. REST routes run these in-process.
import { builder } from "../builder.ts";
import { SubmissionAccepted } from "./submission.ts";
import type { AuthorProofInput, VisitorOperation } from "../../writes/operation.ts";
import * as operations from "../../writes/operations/index.ts";
import { VISITOR_WRITE_EXTENSION } from "../../rest/route-checks.ts";

type FieldBuilder = PothosSchemaTypes.InputFieldBuilder<PothosSchemaTypes.ExtendDefaultTypes<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never>, "InputObject">;

/** Registers `name(input: <Name>Input!): SubmissionAccepted!` for an operation. */
function visitorWrite<Input extends AuthorProofInput>(
  name: string,
  description: string,
  operation: VisitorOperation<Input, unknown>,
  fields: (t: FieldBuilder) => Record<string, any>,
): void {
  let optional: string[] = [];
  const Input = builder.inputType(`${name[0]!.toUpperCase()}${name.slice(1)}Input`, {
    fields: (t) => {
      const own = fields(t as never);
      optional = Object.keys(own);
      return {
        siteId: t.string({ required: true }),
        pageSlug: t.string({ required: true }),
        ...own,
        authorPublicKey: t.string({ required: true }),
        authorSignature: t.string({ required: true }),
        challengeResponse: t.string({ required: true }),
      };
    },
  });
  builder.mutationField(name, (t) =>
    t.field({
      type: SubmissionAccepted,
      description,
      extensions: { [VISITOR_WRITE_EXTENSION]: true },
      args: { input: t.arg({ type: Input, required: true }) },
      resolve: (_root, { input }, ctx) => ctx.services.writes.accept(operation, withNulls(input, optional) as unknown as Input, ctx.idempotency, ctx.checkedSite),
    }),
  );
}

/** GraphQL leaves absent optional fields out; operations take null. */
const withNulls = (input: Record<string, unknown>, fields: string[]) => ({ ...Object.fromEntries(fields.map((f) => [f, null])), ...input });

const relations = (t: FieldBuilder) => ({ replyTo: t.string(), threadRoot: t.string() });

visitorWrite("postComment", "Queues a visitor comment (author proof and proof of work; site write auth on REST).", operations.postComment, (t) => ({
  content: t.string(),
  media: t.field({ type: "JSON" }),
  displayName: t.string(),
  ...relations(t),
}));
visitorWrite("editComment", "Queues an edit of the visitor's own text comment.", operations.editComment, (t) => ({
  commentId: t.string({ required: true }),
  content: t.string(),
}));
visitorWrite("deleteComment", "Queues the redaction of the visitor's own comment.", operations.deleteComment, (t) => ({
  commentId: t.string({ required: true }),
}));
visitorWrite("react", "Queues a reaction (m.reaction) on a comment.", operations.react, (t) => ({
  commentId: t.string({ required: true }),
  key: t.string({ required: true }),
}));
visitorWrite("unreact", "Queues the removal of the visitor's reaction with that key.", operations.unreact, (t) => ({
  commentId: t.string({ required: true }),
  key: t.string({ required: true }),
}));
visitorWrite("createPoll", "Queues an MSC3381 poll.", operations.createPoll, (t) => ({
  question: t.string({ required: true }),
  options: t.stringList({ required: true }),
  maxSelections: t.int(),
  displayName: t.string(),
  ...relations(t),
}));
visitorWrite("vote", "Queues a vote on a poll (a newer vote replaces the earlier one).", operations.vote, (t) => ({
  pollId: t.string({ required: true }),
  optionId: t.string({ required: true }),
}));
visitorWrite("postLocation", "Queues an MSC3488 location.", operations.postLocation, (t) => ({
  geoUri: t.string({ required: true }),
  description: t.string(),
  displayName: t.string(),
  ...relations(t),
}));
