// Imports the operator starts over HTTP: the uploaded file is written to a temporary file and
// imported in the background by this instance (import-run.ts, as `npm run import` does), its
// progress and report kept in its ImportJob row for polling. A job whose instance stopped no
// longer heartbeats and reads as interrupted; running the import again resumes it (nothing is
// sent twice).
import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { notFound, validationError } from "../../core/errors.ts";
import type { Db } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { siteNotFound } from "../sites/sites.ts";
import { SiteStore } from "../sites/site-store.ts";
import type { ImportListener, ImportRooms } from "./importer.ts";
import { ImportJobStore, type ImportJobRow } from "./import-job-store.ts";
import { runImport } from "./import-run.ts";
import { parseMapRule } from "./page-mapping.ts";
import type { ImportSource } from "./records.ts";

/** How often a running job writes its progress (and so its heartbeat). */
const PROGRESS_EVERY_MS = 1_000;
/** A running job silent this long has lost its instance. */
const INTERRUPTED_AFTER_MS = 60_000;

export interface ImportJobView extends Omit<ImportJobRow, "progress" | "report"> {
  progress: Record<string, number>;
  report: Record<string, unknown> | null;
}

export interface StartImport {
  siteId: string;
  source: ImportSource;
  dryRun: boolean;
  since: string | null;
  /** --map rules, one a line. */
  map: string | null;
}

export class ImportJobs {
  private readonly store: ImportJobStore;
  private readonly sites: SiteStore;
  private readonly running = new Set<Promise<void>>();

  constructor(
    db: Db,
    private readonly hs: Homeserver,
    private readonly rooms: ImportRooms,
    private readonly concurrency: number,
    private readonly log: (message: string) => void,
  ) {
    this.store = new ImportJobStore(db);
    this.sites = new SiteStore(db);
  }

  async start(request: StartImport, bytes: Buffer): Promise<ImportJobView> {
    const since = request.since === null ? null : Date.parse(request.since);
    if (since !== null && !Number.isFinite(since)) throw invalid("since", "must be a date-time");
    let rules: ReturnType<typeof parseMapRule>[];
    try {
      rules = (request.map ?? "")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map(parseMapRule);
    } catch (err) {
      throw invalid("map", (err as Error).message);
    }
    if ((await this.sites.status(request.siteId))?.status !== "active") throw siteNotFound(request.siteId);
    const dir = await mkdtemp(join(tmpdir(), "comment-import-upload-"));
    const file = join(dir, "upload");
    await writeFile(file, bytes);
    const job = await this.store.create(randomUUID(), request.siteId, request.source, request.dryRun);
    const run = this.run(job.id, file, { ...request, since, rules })
      .catch((err) => this.log(`import ${job.id}: ${(err as Error)?.message ?? err}`))
      .finally(() => {
        this.running.delete(run);
        return rm(dir, { recursive: true, force: true });
      });
    this.running.add(run);
    return view(job);
  }

  async get(id: string): Promise<ImportJobView> {
    const job = await this.store.find(id);
    if (!job) throw notFound("import-job-not-found", `There is no import job ${id}.`);
    return view(job);
  }

  /** Waits for the jobs this instance runs (tests, and a graceful stop that wants them done). */
  async settled(): Promise<void> {
    await Promise.all([...this.running]);
  }

  private async run(
    id: string,
    file: string,
    options: Omit<StartImport, "since" | "map"> & { since: number | null; rules: ReturnType<typeof parseMapRule>[] },
  ): Promise<void> {
    const progress = { pages_planned: 0, comments_planned: 0, pages_done: 0, comments_done: 0 };
    let written = 0;
    let writing: Promise<void> = Promise.resolve();
    const save = (force = false) => {
      if (!force && Date.now() - written < PROGRESS_EVERY_MS) return;
      written = Date.now();
      const snapshot = JSON.stringify(progress);
      writing = writing.then(() => this.store.update(id, { progress: snapshot })).catch(() => {});
    };
    const heartbeat = setInterval(() => save(true), INTERRUPTED_AFTER_MS / 4);
    const listener: ImportListener = {
      planned(pages, comments) {
        progress.pages_planned = pages;
        progress.comments_planned = comments;
        save(true);
      },
      comment() {
        progress.comments_done++;
        save();
      },
      page() {
        progress.pages_done++;
        save();
      },
    };
    try {
      const outcome = await runImport(
        createReadStream(file),
        { ...options, concurrency: this.concurrency },
        this.hs,
        this.rooms,
        listener,
      );
      await writing;
      if (outcome.kind === "malformed") {
        await this.store.update(id, { status: "failed", error: `${outcome.error.message}; nothing was sent` });
        return;
      }
      await this.store.update(id, {
        status: outcome.report.errors > 0 ? "partial" : "succeeded",
        progress: JSON.stringify(progress),
        report: JSON.stringify(outcome.report),
      });
    } catch (err) {
      await writing;
      await this.store.update(id, { status: "failed", error: (err as Error)?.message ?? String(err) });
    } finally {
      clearInterval(heartbeat);
    }
  }
}

const invalid = (field: string, message: string) => validationError("Invalid query parameters.", [{ field, message }]);

function view(job: ImportJobRow): ImportJobView {
  const interrupted = job.status === "running" && Date.now() - job.updatedAt.getTime() > INTERRUPTED_AFTER_MS;
  return {
    ...job,
    status: interrupted ? "interrupted" : job.status,
    progress: JSON.parse(job.progress) as Record<string, number>,
    report: job.report === null ? null : (JSON.parse(job.report) as Record<string, unknown>),
  };
}
