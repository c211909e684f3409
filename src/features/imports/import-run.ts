// One import run: the file read into the spool (a malformed file stops here, before anything
// is sent), its pages mapped to slugs, then sent (importer.ts); the report and an exit code
// (docs/import-export.md#exit-codes).
import type { Homeserver } from "../../matrix/homeserver.ts";
import { commentoRecords } from "./formats/commento.ts";
import { disqusRecords } from "./formats/disqus.ts";
import { remark42Records } from "./formats/remark42.ts";
import { serviceJsonlRecords } from "./formats/service-jsonl.ts";
import { wordpressRecords } from "./formats/wordpress.ts";
import {
  emptyReport,
  Importer,
  type ImportListener,
  type ImportOptions,
  type ImportReport,
  type ImportRooms,
} from "./importer.ts";
import { pageSlugOf, type MapRule } from "./page-mapping.ts";
import { FormatMismatchError, ImportFileError, type ImportSource, type SourceRecord } from "./records.ts";
import { plainBytes } from "./source-bytes.ts";
import { Spool } from "./spool-store.ts";

/** Exit codes of an import (docs/import-export.md#exit-codes). */
export const IMPORT_EXIT = {
  ok: 0,
  usage: 2,
  homeserverUnreachable: 3,
  partial: 4,
  siteNotFound: 5,
  malformedFile: 6,
  wrongFormat: 7,
} as const;

const READERS: Record<ImportSource, (input: AsyncIterable<Buffer>) => AsyncGenerator<SourceRecord>> = {
  disqus: disqusRecords,
  wordpress: wordpressRecords,
  remark42: remark42Records,
  commento: commentoRecords,
  jsonl: serviceJsonlRecords,
};

export interface ImportRunOptions extends ImportOptions {
  rules: readonly MapRule[];
}

export type ImportOutcome = { kind: "done"; report: ImportReport } | { kind: "malformed"; error: ImportFileError };

/** Reads, maps and sends one file; a file that cannot be read is answered before anything is sent. */
export async function runImport(
  input: AsyncIterable<Buffer>,
  options: ImportRunOptions,
  hs: Homeserver,
  rooms: ImportRooms,
  listener: ImportListener,
): Promise<ImportOutcome> {
  const spool = new Spool();
  try {
    try {
      for await (const record of READERS[options.source](plainBytes(input))) spool.add(record);
      spool.flush();
    } catch (err) {
      if (err instanceof ImportFileError) return { kind: "malformed", error: err };
      throw err;
    }
    const report = emptyReport(options);
    for (const page of spool.pages()) {
      const slug = pageSlugOf(page, options.rules);
      if (slug === null)
        report.error_list.push({ page_slug: null, id: page.key, message: "no page slug can be made of this page" });
      spool.setSlug(page.key, slug);
    }
    const plan = spool.plan();
    if (plan.unplaced > 0) {
      report.errors += plan.unplaced;
      for (const id of spool.unplacedIds(20))
        report.error_list.push({
          page_slug: null,
          id,
          message: "the comment's page is not in the file or has no slug",
        });
    }
    listener.planned(
      plan.pages.length,
      plan.pages.reduce((sum, p) => sum + p.comments, 0),
    );
    await new Importer(hs, rooms, spool, options, report, listener).run(plan.pages);
    return { kind: "done", report };
  } finally {
    spool.close();
  }
}

/** The exit code a finished run answers. */
export const exitCodeOf = (outcome: ImportOutcome): number =>
  outcome.kind === "malformed"
    ? outcome.error instanceof FormatMismatchError
      ? IMPORT_EXIT.wrongFormat
      : IMPORT_EXIT.malformedFile
    : outcome.report.errors > 0
      ? IMPORT_EXIT.partial
      : IMPORT_EXIT.ok;

/** The report as lines for people. */
export function reportLines(report: ImportReport): string[] {
  const s = report.skipped;
  return [
    `${report.dry_run ? "dry run: would send" : "sent"} ${report.comments} comments on ${report.pages} pages by ${report.authors} authors (${report.threads} threads); ${report.already_present} already present`,
    `skipped: ${s.deleted} deleted, ${s.spam} spam, ${s.pending} pending, ${s.pingback} pingbacks, ${s.unsupported} unsupported, ${s.before_since} before --since, ${s.empty} empty`,
    `orphans (parent missing, kept at the top level): ${report.orphans}${report.orphan_ids.length ? ` (${report.orphan_ids.join(", ")})` : ""}`,
    `errors: ${report.errors}`,
    ...report.error_list.map((e) => `  ${e.page_slug ?? "-"} ${e.id ?? "-"}: ${e.message}`),
  ];
}

/** Progress: on a terminal a bar (pages, comments, rate, ETA) redrawn in place, else one line per page. */
export function importProgress(out: { write(text: string): unknown; isTTY?: boolean }): ImportListener {
  const started = Date.now();
  let pages = 0;
  let plannedPages = 0;
  let comments = 0;
  let plannedComments = 0;
  let lastDraw = 0;
  const rate = () => comments / Math.max(0.001, (Date.now() - started) / 1000);
  const bar = () => {
    const width = 30;
    const filled = plannedComments === 0 ? width : Math.round((comments / plannedComments) * width);
    const eta = rate() > 0 ? Math.round((plannedComments - comments) / rate()) : 0;
    out.write(
      `\r\x1b[2K[${"#".repeat(filled)}${".".repeat(width - filled)}] ${pages}/${plannedPages} pages  ${comments}/${plannedComments} comments  ${rate().toFixed(0)}/s  ETA ${eta}s`,
    );
  };
  return {
    planned(p, c) {
      plannedPages = p;
      plannedComments = c;
      if (out.isTTY) bar();
      else out.write(`import: ${p} pages, ${c} comments to read\n`);
    },
    comment() {
      comments++;
      if (out.isTTY && Date.now() - lastDraw > 100) {
        lastDraw = Date.now();
        bar();
      }
    },
    page(outcome) {
      pages++;
      if (out.isTTY) {
        if (outcome.failed) out.write(`\r\x1b[2Kimport: ${outcome.slug} FAILED\n`);
        bar();
        if (pages === plannedPages) out.write("\n");
      } else {
        out.write(
          `import: [${pages}/${plannedPages}] ${outcome.slug}: ${outcome.sent} sent, ${outcome.present} already present${outcome.failed ? " FAILED" : ""}\n`,
        );
      }
    },
  };
}
