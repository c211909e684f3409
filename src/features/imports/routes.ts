// Operator routes of imports and exports (docs/import-export.md): upload a file to import and
// poll its job; stream a site's export.
import { Readable } from "node:stream";
import type { Db } from "../../db/client.ts";
import type { BinaryRoute, OperationRoute, Route } from "../../rest/route.ts";
import { operatorAuth as operator } from "../../rest/route-helpers.ts";
import { ref } from "../../rest/schemas.ts";
import { siteNotFound } from "../sites/sites.ts";
import { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, exportSite, type ExportFormat } from "./export.ts";
import { ExportStore } from "./export-store.ts";
import { IMPORT_SOURCES } from "./records.ts";

declare module "../../rest/route.ts" {
  interface RouteServices {
    db: Db;
  }
}

const JOB = `{ id site_id: siteId source dry_run: dryRun status progress report error created_at: createdAt updated_at: updatedAt }`;
const sitePath = { site_id: { type: "string", pattern: "^[a-z0-9-]{1,64}$" } } as const;

export const operatorStartImport: OperationRoute = {
  kind: "operation",
  operationId: "operatorStartImport",
  method: "POST",
  path: "/api/v1/operator/sites/{site_id}/imports",
  ...operator,
  summary: "Import another comment system's export (the raw file) into a site.",
  description: [
    "The body is the export file as it is (Disqus XML, WordPress WXR, a Remark42 backup, a Commento JSON export or this service's jsonl export; gzip is recognized by its magic number). It is written to a temporary file and imported in the background by the instance that took it, as `npm run import` does: the answer is the job (202), to poll with GET /api/v1/operator/imports/{job_id}.",
    "from names the format; dry_run=true reads, maps and reports without sending; since (a date-time) leaves out older comments; map holds --map rules (REGEX=>REPLACEMENT), one a line, that turn a source page's URL or identifier into a page slug (default: the URL's path).",
    "The body is read under imports.max_upload_bytes (default 64 MiB; 413 payload-too-large beyond); larger files go through npm run import, which streams. A site that is not registered (or retired): 404 site-not-found. Importing again sends only what the rooms do not hold yet.",
  ].join("\n\n"),
  params: sitePath,
  query: {
    properties: {
      from: { enum: [...IMPORT_SOURCES], description: "The file's format." },
      dry_run: { enum: ["true", "false"], description: "true: read, map and report; send nothing." },
      since: { type: "string", format: "date-time", description: "Leave out comments created before this time." },
      map: { type: "string", maxLength: 10_000, description: "Page mapping rules REGEX=>REPLACEMENT, one a line." },
    },
    required: ["from"],
  },
  rawBody: {
    description: "The export file's bytes.",
    maxBytes: (_query, config) => config.imports.maxUploadBytes,
    fingerprintQuery: [],
  },
  document: `mutation StartImport($siteId: String!, $source: String!, $dryRun: Boolean, $since: String, $map: String) {
    startImport(siteId: $siteId, source: $source, dryRun: $dryRun, since: $since, map: $map) ${JOB} }`,
  variables: (input) => ({
    siteId: input.params.site_id,
    source: input.query.from,
    dryRun: input.query.dry_run === "true",
    since: input.query.since ?? null,
    map: input.query.map ?? null,
  }),
  respond: (data) => ({ status: 202, body: data.startImport }),
  responses: { 202: { description: "The import job, running.", schema: ref("ImportJob") } },
  problems: { 400: ["validation-error"], 404: ["site-not-found"] },
};

export const operatorGetImport: OperationRoute = {
  kind: "operation",
  operationId: "operatorGetImport",
  method: "GET",
  path: "/api/v1/operator/imports/{job_id}",
  ...operator,
  summary: "An import job: its progress and, once done, its report.",
  params: { job_id: { type: "string", minLength: 1, maxLength: 64 } },
  document: `query ImportJob($id: String!) { importJob(id: $id) ${JOB} }`,
  variables: (input) => ({ id: input.params.job_id }),
  respond: (data) => ({ status: 200, body: data.importJob }),
  responses: { 200: { description: "The job.", schema: ref("ImportJob") } },
  problems: { 404: ["import-job-not-found"] },
};

export const operatorExportSite: BinaryRoute = {
  kind: "binary",
  operationId: "operatorExportSite",
  method: "GET",
  path: "/api/v1/operator/sites/{site_id}/export",
  ...operator,
  summary: "A site's comments, streamed: jsonl (default), Disqus XML or WordPress WXR.",
  description:
    "Every page, every comment with its thread (reply_to, thread_root), author (kind, name and public id: a visitor's public key or a Matrix user id; never a secret), time, latest text (edited_at when edited), reactions, poll results, deletions flagged. Read from the read model page by page with keyset paging and written as it is read (what `npm run export` writes). The jsonl form imports item for item with from=jsonl; the Disqus and WordPress forms import with their importers. An unregistered site: 404 site-not-found.",
  params: sitePath,
  query: {
    properties: { format: { enum: [...EXPORT_FORMATS], description: "jsonl (default), disqus or wordpress." } },
    required: [],
  },
  async respond(input, services) {
    const siteId = input.params.site_id!;
    if (!(await new ExportStore(services.db).siteExists(siteId))) throw siteNotFound(siteId);
    const format = (input.query.format ?? "jsonl") as ExportFormat;
    const extension = format === "jsonl" ? "jsonl" : "xml";
    return {
      headers: {
        "Content-Type": `${EXPORT_CONTENT_TYPES[format]}; charset=utf-8`,
        "Content-Disposition": `attachment; filename="${siteId}-${format}.${extension}"`,
      },
      body: Readable.from(exportSite(services.db, siteId, format)),
    };
  },
  responses: {
    200: {
      description: "The export, streamed.",
      binary: Object.values(EXPORT_CONTENT_TYPES),
      headers: { "Content-Disposition": "`attachment` with a file name such as `blog-jsonl.jsonl`." },
    },
  },
  problems: { 400: ["validation-error"], 404: ["site-not-found"] },
};

export const importRoutes: Route[] = [operatorStartImport, operatorGetImport, operatorExportSite];
