// npm run operator -- <command> [arguments] [--json] [--config FILE] [--service-url URL]: the operator
// API from the command line (src/app/operator-cli.ts), reading the service's configuration (its
// listen address and operator token). `help` lists the commands; exit codes: docs/cli.md.
import { ConfigError, buildConfig, loadConfigFile, type Config } from "../config/config.ts";
import { devConfigDocument } from "../config/dev-defaults.ts";
import { OPERATOR_EXIT, runOperator, serviceUrl } from "../app/operator-cli.ts";
import { buildRoutes } from "../app/route-table.ts";

/** --config and --service-url are this edge's own; the rest is the command's. */
function ownOption(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const arg = args[i]!;
  if (arg.includes("=")) return args.splice(i, 1)[0]!.slice(arg.indexOf("=") + 1);
  if (i + 1 >= args.length) throw new ConfigError(`--${name} needs a value`);
  return args.splice(i, 2)[1];
}

const args = process.argv.slice(2);
let config: Config;
let url: string | undefined;
try {
  const configPath = ownOption(args, "config") ?? process.env.COMMENT_SERVICE_CONFIG;
  url = ownOption(args, "service-url");
  config = configPath ? loadConfigFile(configPath) : buildConfig(devConfigDocument());
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`operator: ${err.message}`);
  process.exit(OPERATOR_EXIT.usage);
}

process.exitCode = await runOperator(
  args,
  config,
  buildRoutes(() => ({})),
  {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    progress: process.stdout,
  },
  url ?? serviceUrl(config),
);
