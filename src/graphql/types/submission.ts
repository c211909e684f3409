// Visitor writes: they enqueue a submission and answer with its id.
import { builder } from "../builder.ts";

export const SubmissionAccepted = builder.simpleObject("SubmissionAccepted", {
  fields: (t) => ({
    submissionId: t.string(),
    replayed: t.boolean({ description: "True when this answers a retry of an earlier request with the same Idempotency-Key." }),
  }),
});

builder.prismaObject("Submission", {
  description: "A queued visitor write (for dashboards).",
  fields: (t) => ({
    id: t.exposeString("id"),
    kind: t.exposeString("kind"),
    siteId: t.exposeString("siteId"),
    pageSlug: t.exposeString("pageSlug"),
    status: t.exposeString("status", { description: '"queued", "sent" or "failed".' }),
    attempts: t.exposeInt("attempts"),
    lastError: t.exposeString("lastError", { nullable: true }),
    eventId: t.exposeString("eventId", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    completedAt: t.expose("completedAt", { type: "DateTime", nullable: true }),
  }),
});

builder.queryField("submission", (t) =>
  t.prismaField({
    type: "Submission",
    nullable: true,
    args: { id: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.db.submission.findUnique({ ...query, where: { id: args.id } }),
  }),
);

const PostCommentInput = builder.inputType("PostCommentInput", {
  fields: (t) => ({
    siteId: t.string({ required: true }),
    pageSlug: t.string({ required: true }),
    content: t.string(),
    media: t.field({ type: "JSON" }),
    displayName: t.string(),
    replyTo: t.string(),
    threadRoot: t.string(),
    authorPublicKey: t.string({ required: true }),
    authorSignature: t.string({ required: true }),
    challengeResponse: t.string({ required: true }),
  }),
});

builder.mutationField("postComment", (t) =>
  t.field({
    type: SubmissionAccepted,
    description: "Queues a visitor comment (site write auth, author proof and proof of work required).",
    args: { input: t.arg({ type: PostCommentInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      ctx.services.comments.post(
        {
          ...input,
          content: input.content ?? null,
          media: input.media ?? null,
          displayName: input.displayName ?? null,
          replyTo: input.replyTo ?? null,
          threadRoot: input.threadRoot ?? null,
        },
        ctx.request,
        ctx.idempotency,
      ),
  }),
);
