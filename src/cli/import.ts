// npm run import -- --site SITE_ID --from disqus|wordpress|remark42|commento|jsonl FILE
//   [--config FILE] [--map 'REGEX=>REPLACEMENT']... [--since DATE] [--dry-run] [--json]
//   [--concurrency N]
// Imports another comment system's export into a site (src/features/imports/). Re-runnable:
// what a room holds already is not sent again. Exit codes: docs/import-export.md.
import { accessSync, constants, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { buildConfig, loadConfigFile, type Config } from "../config/config.ts";
import { devConfigDocument } from "../config/dev-defaults.ts";
import { importCommand } from "../features/imports/command.ts";
import { IMPORT_EXIT, type ImportRunOptions } from "../features/imports/import-run.ts";
import { parseMapRule } from "../features/imports/page-mapping.ts";
import { IMPORT_SOURCES, type ImportSource } from "../features/imports/records.ts";

let config: Config;
let options: ImportRunOptions & { file: string; json: boolean };
try {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      config: { type: "string" },
      site: { type: "string" },
      from: { type: "string" },
      map: { type: "string", multiple: true },
      since: { type: "string" },
      "dry-run": { type: "boolean" },
      json: { type: "boolean" },
      concurrency: { type: "string" },
    },
  });
  if (!values.site) throw new Error("--site is required");
  if (!IMPORT_SOURCES.includes(values.from as ImportSource))
    throw new Error(`--from must be one of ${IMPORT_SOURCES.join(", ")}`);
  if (positionals.length !== 1) throw new Error("name one file to import");
  // A file that cannot be read is a usage error, said before the homeserver or database is asked.
  try {
    if (!statSync(positionals[0]!).isFile()) throw new Error("it is not a file");
    accessSync(positionals[0]!, constants.R_OK);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message;
    throw new Error(`${positionals[0]}: cannot be read (${reason})`);
  }
  const since = values.since === undefined ? null : Date.parse(values.since);
  if (since !== null && !Number.isFinite(since)) throw new Error("--since must be a date (ISO 8601)");
  const concurrency = Number(values.concurrency ?? 8);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new Error("--concurrency must be an integer from 1 to 64");
  const configPath = values.config ?? process.env.COMMENT_SERVICE_CONFIG;
  config = configPath ? loadConfigFile(configPath) : buildConfig(devConfigDocument());
  options = {
    siteId: values.site,
    source: values.from as ImportSource,
    rules: (values.map ?? []).map(parseMapRule),
    since,
    dryRun: values["dry-run"] ?? false,
    concurrency,
    file: positionals[0]!,
    json: values.json ?? false,
  };
} catch (err) {
  console.error(`import: ${(err as Error).message}`);
  process.exit(IMPORT_EXIT.usage);
}

process.exitCode = await importCommand(config, options, process.stdout, process.stderr);
