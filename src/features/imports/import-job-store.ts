// The ImportJob rows of operator imports (jobs.ts).
import type { Db } from "../../db/client.ts";

export interface ImportJobRow {
  id: string;
  siteId: string;
  source: string;
  dryRun: boolean;
  status: string;
  progress: string;
  report: string | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export class ImportJobStore {
  constructor(private readonly db: Db) {}

  create(id: string, siteId: string, source: string, dryRun: boolean): Promise<ImportJobRow> {
    return this.db.importJob.create({ data: { id, siteId, source, dryRun } });
  }

  find(id: string): Promise<ImportJobRow | null> {
    return this.db.importJob.findUnique({ where: { id } });
  }

  async update(
    id: string,
    fields: Partial<Pick<ImportJobRow, "status" | "progress" | "report" | "error">>,
  ): Promise<void> {
    // updatedAt moves on every write: the heartbeat that tells a running job from an interrupted one.
    await this.db.importJob.update({ where: { id }, data: { ...fields, updatedAt: new Date() } });
  }
}
