// The shapes of operator imports and exports.
import { nullableString } from "../../rest/schemas.ts";
import { IMPORT_SOURCES } from "./records.ts";

export const components = {
  ImportJob: {
    type: "object",
    description:
      "An import the operator started (docs/import-export.md). Poll it until status is no longer running: the report has the counts an `npm run import --json` prints.",
    required: [
      "id",
      "site_id",
      "source",
      "dry_run",
      "status",
      "progress",
      "report",
      "error",
      "created_at",
      "updated_at",
    ],
    properties: {
      id: { type: "string" },
      site_id: { type: "string" },
      source: { enum: [...IMPORT_SOURCES] },
      dry_run: { type: "boolean" },
      status: { enum: ["running", "succeeded", "partial", "failed", "interrupted"] },
      progress: {
        type: "object",
        description: "pages_planned, comments_planned, pages_done, comments_done (0 until the file is read).",
        additionalProperties: { type: "integer" },
      },
      report: {
        type: ["object", "null"],
        description:
          "Once done: pages, comments (sent), already_present, authors, threads, skipped {deleted, spam, pending, pingback, unsupported, before_since, empty}, orphans, orphan_ids, errors, error_list.",
        additionalProperties: true,
      },
      error: {
        ...nullableString,
        description: "Why a failed job failed (a malformed file names its line; nothing was sent).",
      },
      created_at: { type: "string", format: "date-time" },
      updated_at: { type: "string", format: "date-time" },
    },
  },
} as const;
