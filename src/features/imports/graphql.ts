// Operator imports (jobs.ts): start one with the request's bytes, read where it is.
import { builder } from "../../graphql/builder.ts";
import { validationError } from "../../core/errors.ts";
import type { ImportJobs, ImportJobView } from "./jobs.ts";
import { IMPORT_SOURCES, type ImportSource } from "./records.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    imports: ImportJobs;
  }
}

const ImportJob = builder.objectRef<ImportJobView>("ImportJob").implement({
  description: "An import the operator started: its progress and, once done, its report.",
  fields: (t) => ({
    id: t.exposeString("id"),
    siteId: t.exposeString("siteId"),
    source: t.exposeString("source"),
    dryRun: t.exposeBoolean("dryRun"),
    status: t.exposeString("status", {
      description:
        "running, succeeded, partial (done, with errors in the report), failed (see error) or interrupted (its instance stopped).",
    }),
    progress: t.expose("progress", {
      type: "JSON",
      description: "{pages_planned, comments_planned, pages_done, comments_done}",
    }),
    report: t.expose("report", { type: "JSON", nullable: true }),
    error: t.exposeString("error", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.queryField("importJob", (t) =>
  t.field({
    type: ImportJob,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.imports.get(args.id),
  }),
);

builder.mutationField("startImport", (t) =>
  t.field({
    type: ImportJob,
    description: "Starts an import of the request's raw body (REST: the operator import route) into a site.",
    args: {
      siteId: t.arg.string({ required: true }),
      source: t.arg.string({ required: true, description: IMPORT_SOURCES.join(", ") }),
      dryRun: t.arg.boolean({ defaultValue: false }),
      since: t.arg.string(),
      map: t.arg.string({ description: "--map rules (REGEX=>REPLACEMENT), one a line." }),
    },
    resolve: (_root, args, ctx) => {
      const bytes = ctx.request?.rawBody;
      if (!bytes || bytes.length === 0) throw validationError("The body must be the file to import.");
      if (!IMPORT_SOURCES.includes(args.source as ImportSource))
        throw validationError("Invalid query parameters.", [
          { field: "from", message: `must be one of ${IMPORT_SOURCES.join(", ")}` },
        ]);
      return ctx.services.imports.start(
        {
          siteId: args.siteId,
          source: args.source as ImportSource,
          dryRun: args.dryRun ?? false,
          since: args.since ?? null,
          map: args.map ?? null,
        },
        bytes,
      );
    },
  }),
);
