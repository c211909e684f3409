// npm run export -- --site SITE_ID [--format jsonl|disqus|wordpress] [--config FILE] > FILE
// Writes a site's comments (every page, every comment with its thread, author, time, latest
// text, reactions, poll results, deletions flagged) to stdout, streamed from the read model
// (src/features/imports/export.ts). Exit codes: docs/import-export.md.
import { parseArgs } from "node:util";
import { buildConfig, loadConfigFile, type Config } from "../config/config.ts";
import { devConfigDocument } from "../config/dev-defaults.ts";
import { exportCommand } from "../features/imports/command.ts";
import { EXPORT_FORMATS, type ExportFormat } from "../features/imports/export.ts";
import { IMPORT_EXIT } from "../features/imports/import-run.ts";

let config: Config;
let options: { siteId: string; format: ExportFormat };
try {
  const { values } = parseArgs({
    options: { config: { type: "string" }, site: { type: "string" }, format: { type: "string" } },
  });
  if (!values.site) throw new Error("--site is required");
  const format = (values.format ?? "jsonl") as ExportFormat;
  if (!EXPORT_FORMATS.includes(format)) throw new Error(`--format must be one of ${EXPORT_FORMATS.join(", ")}`);
  const configPath = values.config ?? process.env.COMMENT_SERVICE_CONFIG;
  config = configPath ? loadConfigFile(configPath) : buildConfig(devConfigDocument());
  options = { siteId: values.site, format };
} catch (err) {
  console.error(`export: ${(err as Error).message}`);
  process.exit(IMPORT_EXIT.usage);
}

process.exitCode = await exportCommand(config, options, process.stdout, process.stderr);
