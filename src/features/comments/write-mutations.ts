// Visitor write mutations: one per operation, each a thin door into the write pipeline
// (src/writes/pipeline.ts), which runs every check. REST routes run these in-process.
import { builder } from "../../graphql/builder.ts";
import { SubmissionAccepted } from "../../writes/graphql.ts";
import { VisitorAvatarResult } from "../visitors/graphql.ts";
import type { ObjectRef } from "@pothos/core";
import type { AuthorProofInput, ImmediateOperation, SiteProofInput, VisitorOperation } from "../../writes/operation.ts";
import * as operations from "../../app/write-operations.ts";
import { VISITOR_WRITE_EXTENSION } from "../../rest/route-checks.ts";

type Types = PothosSchemaTypes.ExtendDefaultTypes<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never>;
type FieldBuilder = PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">;

/** Whether a write is to a page (pageSlug) or to the site as a whole (avatars). */
type WriteLevel = "page" | "site";

/** `<Name>Input`: the operation's own fields plus site, page (for a page write) and author proof; and its optional fields. */
function writeInput(name: string, fields: (t: FieldBuilder) => Record<string, any>, level: WriteLevel = "page") {
  let optional: string[] = [];
  const Input = builder.inputType(`${name[0]!.toUpperCase()}${name.slice(1)}Input`, {
    fields: (t) => {
      const own = fields(t as never);
      optional = Object.keys(own);
      return {
        siteId: t.string({ required: true }),
        ...(level === "page" ? { pageSlug: t.string({ required: true }) } : {}),
        ...own,
        authorPublicKey: t.string({ required: true }),
        authorSignature: t.string({ required: true }),
        challengeResponse: t.string({ required: true }),
      };
    },
  });
  return { Input, optional: () => optional };
}

/** Registers `name(input: <Name>Input!): SubmissionAccepted!` for a queued operation. */
function visitorWrite<Input extends AuthorProofInput>(
  name: string,
  description: string,
  operation: VisitorOperation<Input, unknown>,
  fields: (t: FieldBuilder) => Record<string, any>,
): void {
  const { Input, optional } = writeInput(name, fields);
  builder.mutationField(name, (t) =>
    t.field({
      type: SubmissionAccepted,
      description,
      extensions: { [VISITOR_WRITE_EXTENSION]: true },
      args: { input: t.arg({ type: Input, required: true }) },
      resolve: (_root, { input }, ctx) => ctx.services.writes.accept(operation, withNulls(input, optional()) as unknown as Input, ctx.idempotency, ctx.checkedSite),
    }),
  );
}

/**
 * Registers `name(input: <Name>Input!): <type>!` for an immediate operation whose input is
 * its fields plus the request's raw body (`body`; empty without one, e.g. on /graphql).
 */
function immediateWrite<Input extends SiteProofInput, Result extends object>(
  name: string,
  description: string,
  operation: ImmediateOperation<Input, unknown, Result>,
  /** The output type: the result's fields plus `replayed`. */
  type: ObjectRef<Types, object>,
  fields: (t: FieldBuilder) => Record<string, any>,
  level: WriteLevel = "page",
): void {
  const { Input, optional } = writeInput(name, fields, level);
  builder.mutationField(name, (t) =>
    t.field({
      type,
      description,
      extensions: { [VISITOR_WRITE_EXTENSION]: true },
      args: { input: t.arg({ type: Input, required: true }) },
      resolve: async (_root, { input }, ctx) => {
        const body = ctx.request?.rawBody ?? Buffer.alloc(0);
        const { result, replayed } = await ctx.services.writes.perform(operation, { ...withNulls(input, optional()), body } as unknown as Input, ctx.idempotency, ctx.checkedSite);
        return { ...result, replayed };
      },
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
const MediaUpload = builder.simpleObject("MediaUpload", {
  description: "A visitor's upload to the homeserver's media repository.",
  fields: (t) => ({
    url: t.string({ description: "The mxc:// URL; post it in a comment's media." }),
    filename: t.string({ nullable: true }),
    mimetype: t.string({ description: "The canonical MIME type (checked against the bytes)." }),
    size: t.int({ description: "Bytes." }),
    voice: t.boolean(),
    replayed: t.boolean({ description: "True when this answers a retry with the same Idempotency-Key (nothing uploaded again)." }),
  }),
});

immediateWrite("uploadMedia", "Uploads the request body to the media repository as the visitor's virtual user (REST only: the bytes are the raw request body).", operations.uploadMedia, MediaUpload, (t) => ({
  mime: t.string({ required: true }),
  filename: t.string(),
  voice: t.string(),
}));
immediateWrite(
  "uploadAvatar",
  "Sets the visitor's avatar on the site from the request body (an image; REST only): uploaded as the virtual user, set on its profile and in its rooms' member events.",
  operations.uploadAvatar,
  VisitorAvatarResult,
  (t) => ({ mime: t.string({ required: true }), filename: t.string() }),
  "site",
);
immediateWrite("deleteAvatar", "Removes the visitor's avatar on the site (a no-op without one).", operations.deleteAvatar, VisitorAvatarResult, () => ({}), "site");
visitorWrite("postLocation", "Queues an MSC3488 location.", operations.postLocation, (t) => ({
  geoUri: t.string({ required: true }),
  description: t.string(),
  displayName: t.string(),
  ...relations(t),
}));
