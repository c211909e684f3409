// The import of the benchmark's import section, in its own process so its peak RSS is its own:
// node --import tsx test/bench/import-child.ts FILE SITE_ID CONCURRENCY, with the service's
// Config as JSON in BENCH_IMPORT_CONFIG. Prints the --json report, then {"max_rss_bytes": …}.
import type { Config } from "../../src/config/config.ts";
import { importCommand } from "../../src/features/imports/command.ts";

const [file, siteId, concurrency] = process.argv.slice(2);
const config = JSON.parse(process.env.BENCH_IMPORT_CONFIG!) as Config;
const code = await importCommand(
  config,
  {
    siteId: siteId!,
    source: "disqus",
    rules: [],
    since: null,
    dryRun: false,
    concurrency: Number(concurrency),
    file: file!,
    json: true,
  },
  process.stdout,
  { write: () => true },
);
// resourceUsage().maxRSS is in kilobytes.
process.stdout.write(`${JSON.stringify({ max_rss_bytes: process.resourceUsage().maxRSS * 1024 })}\n`);
process.exitCode = code;
