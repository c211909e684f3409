// `npm run import` and `npm run export` as the command line runs them: the service's database
// and homeserver from its configuration, the rooms provisioned as the queue worker provisions
// them, progress and the report printed, an exit code scripts can rely on (import-run.ts).
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Config } from "../../config/config.ts";
import { openDatabase, type Db } from "../../db/client.ts";
import { migrate } from "../../db/migrations.ts";
import { Homeserver } from "../../matrix/homeserver.ts";
import { MatrixNames } from "../../matrix/names.ts";
import { Projector } from "../../projection/projector.ts";
import { RolePowerLevels } from "../governance/power-levels.ts";
import { Provisioner } from "../rooms/provisioning.ts";
import { Quarantines } from "../rooms/quarantine.ts";
import { RoomStore } from "../rooms/room-store.ts";
import { SiteStore } from "../sites/site-store.ts";
import { exportSite, type ExportFormat } from "./export.ts";
import { ExportStore } from "./export-store.ts";
import type { ImportRooms } from "./importer.ts";
import {
  exitCodeOf,
  IMPORT_EXIT,
  importProgress,
  reportLines,
  runImport,
  type ImportRunOptions,
} from "./import-run.ts";

type Output = { write(text: string): unknown; isTTY?: boolean };

/** The rooms as the worker provisions them, for a process that is not the service (its projection replays what waits). */
export function importRooms(db: Db, hs: Homeserver, config: Config, log: (message: string) => void): ImportRooms {
  const projector = new Projector(db, hs.names, async () => {}, false);
  const provisioner = new Provisioner(
    db,
    hs,
    config.matrix.roomVersion,
    (roomId) => projector.replayWaiting(roomId),
    new RolePowerLevels(db, hs, log),
    new Quarantines(db, hs, log, () => {}),
  );
  const rooms = new RoomStore(db);
  return {
    ensurePageRoom: (siteId, pageSlug) => provisioner.ensurePageRoom(siteId, pageSlug),
    activeRoomId: (siteId, pageSlug) => rooms.activeRoomId(siteId, pageSlug),
  };
}

export const homeserverOf = (config: Config) =>
  new Homeserver(
    config.matrix.homeserverUrl,
    config.matrix.asToken,
    new MatrixNames(config.matrix.namespacePrefix, config.matrix.serverName),
    config.matrix.requestTimeoutMs,
  );

/** Runs `npm run import`; the exit code. */
export async function importCommand(
  config: Config,
  options: ImportRunOptions & { file: string; json: boolean },
  out: Output,
  err: Output,
): Promise<number> {
  const hs = homeserverOf(config);
  const say = (line: string) => err.write(`import: ${line}\n`);
  try {
    await hs.versions();
  } catch (error) {
    say(`the homeserver ${config.matrix.homeserverUrl} cannot be reached: ${(error as Error).message}`);
    return IMPORT_EXIT.homeserverUnreachable;
  }
  await migrate(config.database.url);
  const db = await openDatabase(config.database.url, config.database);
  try {
    if ((await new SiteStore(db).status(options.siteId))?.status !== "active") {
      say(`site ${options.siteId} is not registered (or is retired)`);
      return IMPORT_EXIT.siteNotFound;
    }
    const input = createReadStream(options.file);
    const outcome = await runImport(input, options, hs, importRooms(db, hs, config, say), importProgress(err));
    if (outcome.kind === "malformed") {
      say(`${options.file}: ${outcome.error.message}; nothing was sent`);
      if (options.json) out.write(`${JSON.stringify({ error: outcome.error.message, line: outcome.error.line })}\n`);
    } else if (options.json) out.write(`${JSON.stringify(outcome.report)}\n`);
    else for (const line of reportLines(outcome.report)) out.write(`import: ${line}\n`);
    return exitCodeOf(outcome);
  } finally {
    await db.$disconnect();
  }
}

/** Runs `npm run export`: the site's export written to `out` as it is read; the exit code. */
export async function exportCommand(
  config: Config,
  options: { siteId: string; format: ExportFormat },
  out: NodeJS.WritableStream,
  err: Output,
): Promise<number> {
  const db = await openDatabase(config.database.url, config.database);
  try {
    if (!(await new ExportStore(db).siteExists(options.siteId))) {
      err.write(`export: site ${options.siteId} is not registered\n`);
      return IMPORT_EXIT.siteNotFound;
    }
    await pipeline(Readable.from(exportSite(db, options.siteId, options.format)), out, { end: false });
    return IMPORT_EXIT.ok;
  } finally {
    await db.$disconnect();
  }
}
