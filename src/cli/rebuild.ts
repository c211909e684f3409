// npm run rebuild [-- --config FILE]: rebuilds the read model (comments, reactions, members,
// room state, projection repairs) from the stored Matrix events. Stop the service first.
// Without a configuration (flag or COMMENT_SERVICE_CONFIG): the dev defaults' database.
import { parseArgs } from "node:util";
import { ConfigError, buildConfig, loadConfigFile, type Config } from "../config/config.ts";
import { devConfigDocument } from "../config/dev-defaults.ts";
import { openDatabase } from "../db/client.ts";
import { migrate } from "../db/migrations.ts";
import { MatrixNames } from "../matrix/names.ts";
import { rebuildReadModel } from "../projection/rebuild.ts";

const { values } = parseArgs({ options: { config: { type: "string" } } });
const configPath = values.config ?? process.env.COMMENT_SERVICE_CONFIG;

let config: Config;
try {
  config = configPath ? loadConfigFile(configPath) : buildConfig(devConfigDocument());
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`rebuild: ${err.message}`);
  process.exit(2);
}

await migrate(config.database.url);
const db = await openDatabase(config.database.url, config.database);
try {
  const started = Date.now();
  const summary = await rebuildReadModel(db, new MatrixNames(config.matrix.namespacePrefix, config.matrix.serverName));
  console.log(
    `rebuild: replayed ${summary.events} events in ${((Date.now() - started) / 1000).toFixed(1)} s — ${summary.applied} applied, ${summary.waiting} waiting for their room, ${summary.failed} failed (see ProjectionRepair)`,
  );
} finally {
  await db.$disconnect();
}
