// Queued visitor writes: the answer to a write, and the queue rows for dashboards.
import { builder } from "../graphql/builder.ts";
import type { WritePipeline } from "./pipeline.ts";
import type { SubmissionStore } from "../queue/submission-store.ts";

declare module "../graphql/context.ts" {
  interface ContextServices {
    writes: WritePipeline;
    submissions: SubmissionStore;
  }
}

export const SubmissionAccepted = builder.simpleObject("SubmissionAccepted", {
  fields: (t) => ({
    submissionId: t.string(),
    replayed: t.boolean({
      description: "True when this answers a retry of an earlier request with the same Idempotency-Key.",
    }),
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
    resolve: (query, _root, args, ctx) => ctx.services.submissions.byId(args.id, query),
  }),
);
