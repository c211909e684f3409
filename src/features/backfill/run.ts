// A backfill run as the command line (npm run backfill) and the start-up mode (npm start --
// --backfill) make it: the database migrated, the homeserver checked, the sites found and read,
// progress printed; the outcome is an exit code scripts can rely on (docs/cli.md).
import { ConfigError, type Config } from "../../config/config.ts";
import { openDatabase } from "../../db/client.ts";
import { migrate } from "../../db/migrations.ts";
import { Homeserver } from "../../matrix/homeserver.ts";
import { MatrixNames } from "../../matrix/names.ts";
import { Sites } from "../sites/sites.ts";
import { Backfill, type BackfillProgressListener, type RoomReport } from "./backfill.ts";
import { discoverSites, type SitePlan } from "./discovery.ts";

/** Exit codes of a backfill (2 is a configuration error, reported before a run starts). */
export const BACKFILL_EXIT = { ok: 0, config: 2, homeserverUnreachable: 3, partial: 4, siteNotFound: 5 } as const;

/** Events per /messages request unless --page-size says otherwise. */
export const DEFAULT_PAGE_SIZE = 100;

/** --page-size: 1 to 1000 events per request (undefined: the default). */
export function pageSizeOption(text: string | undefined): number {
  const pageSize = Number(text ?? DEFAULT_PAGE_SIZE);
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > 1000)
    throw new ConfigError("--page-size must be an integer from 1 to 1000");
  return pageSize;
}

export interface BackfillRunOptions {
  siteId: string | null;
  pageSize: number;
  /** Where progress goes: a bar when it is a terminal, else one line per room. */
  out: NodeJS.WriteStream | { write(text: string): unknown; isTTY?: boolean };
}

const where = (room: Pick<RoomReport, "siteId" | "pageSlug">) =>
  room.pageSlug === null ? `${room.siteId} (space)` : `${room.siteId}/${room.pageSlug}`;

/** One plain line per room, or on a terminal a bar redrawn in place. */
export function progressPrinter(out: BackfillRunOptions["out"]): BackfillProgressListener {
  if (!out.isTTY) {
    return {
      planned: (rooms) => out.write(`backfill: ${rooms} rooms to read\n`),
      page: () => {},
      room: (r, done, planned) =>
        out.write(
          `backfill: [${done}/${planned}] ${where(r)} ${r.roomId} ${r.role}: ${r.read} events read (${r.total} in all)${r.error ? ` FAILED: ${r.error}` : ""}\n`,
        ),
    };
  }
  let done = 0;
  let planned = 0;
  const bar = (label: string) => {
    const width = 30;
    const filled = planned === 0 ? width : Math.round((done / planned) * width);
    out.write(`\r\x1b[2K[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${planned} rooms  ${label}`);
  };
  return {
    planned: (rooms) => {
      planned = rooms;
      bar("");
    },
    page: (room, read) => bar(`${where(room)}: ${read} events`),
    room: (r, d) => {
      done = d;
      if (r.error) out.write(`\r\x1b[2Kbackfill: ${where(r)} ${r.roomId} FAILED: ${r.error}\n`);
      bar(done === planned ? "\n" : "");
    },
  };
}

/** Runs a backfill of `options.siteId` (null: every site); the exit code. */
export async function runBackfill(config: Config, options: BackfillRunOptions): Promise<number> {
  const names = new MatrixNames(config.matrix.namespacePrefix, config.matrix.serverName);
  const hs = new Homeserver(config.matrix.homeserverUrl, config.matrix.asToken, names, config.matrix.requestTimeoutMs);
  const say = (line: string) => options.out.write(`backfill: ${line}\n`);
  let plans: SitePlan[];
  try {
    await hs.versions();
    plans = await discoverSites(hs, options.siteId);
  } catch (err) {
    say(`the homeserver ${config.matrix.homeserverUrl} cannot be read: ${(err as Error)?.message ?? err}`);
    return BACKFILL_EXIT.homeserverUnreachable;
  }
  if (options.siteId !== null && plans.length === 0) {
    say(`site ${options.siteId} has no Space on the homeserver`);
    return BACKFILL_EXIT.siteNotFound;
  }
  await migrate(config.database.url);
  const db = await openDatabase(config.database.url, config.database);
  try {
    const backfill = new Backfill(db, hs, new Sites(db, config.sites), options.pageSize);
    const summary = await backfill.run(plans, progressPrinter(options.out));
    say(
      `${summary.sites} sites, ${summary.rooms} rooms, ${summary.events} events read; ${summary.failed.length} rooms failed`,
    );
    return summary.failed.length > 0 ? BACKFILL_EXIT.partial : BACKFILL_EXIT.ok;
  } finally {
    await db.$disconnect();
  }
}
