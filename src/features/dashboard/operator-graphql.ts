// The operator's part of the dashboard: the queue (depth, failed submissions with their reasons,
// retry). Quarantined rooms, upgrade intents and repairs are their features' operator fields.
import { DomainError, notFound } from "../../core/errors.ts";
import { builder } from "../../graphql/builder.ts";
import { requireOperator } from "./access.ts";
import { decodeKeysetCursor, encodeKeysetCursor } from "./cursors.ts";
import { checkFirst, connection, CONNECTION_LIMITS } from "./dashboard.ts";
import { connectionType } from "./graphql.ts";
import { type FailedSubmission, QueueOverviewStore } from "./queue-overview-store.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    /** Woken when a failed submission is queued again. */
    worker: { wake(): void };
  }
}

const FailedSubmissionType = builder.objectRef<FailedSubmission>("FailedSubmission").implement({
  description: "A submission the worker gave up on (a permanent failure, or its attempts spent).",
  fields: (t) => ({
    id: t.exposeString("id"),
    kind: t.exposeString("kind", { description: 'What it does, e.g. "comment.post".' }),
    siteId: t.exposeString("siteId"),
    pageSlug: t.exposeString("pageSlug"),
    attempts: t.exposeInt("attempts"),
    reason: t.exposeString("lastError", { nullable: true, description: "Why it failed." }),
    failedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const FailedConnection = connectionType("FailedSubmission", FailedSubmissionType);

const OperatorQueue = builder.objectRef<Record<string, never>>("OperatorQueue").implement({
  description: "The durable submission queue, as the operator sees it.",
  fields: (t) => ({
    depth: t.int({
      description: "Submissions waiting to be performed.",
      resolve: (_q, _args, ctx) => new QueueOverviewStore(ctx.services.db).depth(),
    }),
    failed: t.field({
      type: FailedConnection,
      description: "Failed submissions, oldest failure first.",
      args: {
        first: t.arg.int({
          description: `1-${CONNECTION_LIMITS.maxFirst}, default ${CONNECTION_LIMITS.defaultFirst}.`,
        }),
        after: t.arg.string(),
      },
      resolve: async (_q, args, ctx) => {
        const first = checkFirst(args.first ?? null);
        const after = args.after ? decodeKeysetCursor(args.after, "failed") : null;
        const rows = await new QueueOverviewStore(ctx.services.db).failed(after, first + 1);
        return connection(rows, first, (row) => ({
          cursor: encodeKeysetCursor("failed", { at: row.updatedAt, id: row.id }),
          node: row,
        }));
      },
    }),
  }),
});

builder.queryField("operatorQueue", (t) =>
  t.field({
    type: OperatorQueue,
    description: "The submission queue (operator only).",
    resolve: async (_root, _args, ctx) => {
      await requireOperator(ctx);
      return {};
    },
  }),
);

builder.mutationField("retrySubmission", (t) =>
  t.string({
    description:
      "Queues a failed submission again (operator only): the worker performs it in its page's lane (an event an earlier attempt stored is found, not sent again). Returns its status.",
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await requireOperator(ctx);
      const store = new QueueOverviewStore(ctx.services.db);
      if (!(await store.retry(args.id, new Date()))) {
        const found = await store.status(args.id);
        if (!found) throw notFound("submission-not-found", `No submission ${args.id}.`);
        throw new DomainError("submission-not-failed", 409, `Submission ${args.id} is ${found.status}, not failed.`);
      }
      ctx.services.worker.wake();
      return "queued";
    },
  }),
);
