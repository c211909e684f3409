// npm run backfill [-- --config FILE] [--site SITE_ID] [--page-size N]: rebuilds the read model
// of every site (or one) from the homeserver alone (src/features/backfill/). Resumable: run it
// again after an interruption. Exit codes: docs/cli.md.
import { parseArgs } from "node:util";
import { buildConfig, loadConfigFile, type Config } from "../config/config.ts";
import { devConfigDocument } from "../config/dev-defaults.ts";
import { BACKFILL_EXIT, pageSizeOption, runBackfill } from "../features/backfill/run.ts";

let config: Config;
let options: { siteId: string | null; pageSize: number };
try {
  const { values } = parseArgs({
    options: { config: { type: "string" }, site: { type: "string" }, "page-size": { type: "string" } },
  });
  const configPath = values.config ?? process.env.COMMENT_SERVICE_CONFIG;
  const pageSize = pageSizeOption(values["page-size"]);
  config = configPath ? loadConfigFile(configPath) : buildConfig(devConfigDocument());
  options = { siteId: values.site ?? null, pageSize };
} catch (err) {
  console.error(`backfill: ${(err as Error).message}`);
  process.exit(BACKFILL_EXIT.config);
}

process.exitCode = await runBackfill(config, { ...options, out: process.stdout });
