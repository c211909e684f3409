// npm start [-- --config FILE] [--no-worker] [--backfill [--backfill-site SITE_ID]]
// --backfill (operator only: a start-up mode, never an HTTP route) first rebuilds the read model
// from the homeserver (npm run backfill, docs/cli.md), then serves; it stops with the backfill's
// exit code when the backfill does not complete.
// Without a configuration (flag or COMMENT_SERVICE_CONFIG): embedded dev defaults, with the
// local Synapse provisioned and started. With one: exactly what it says, homeserver included;
// SIGHUP then re-reads it (the log level changes at once, anything else on restart).
import { parseArgs } from "node:util";
import { ConfigError, buildConfig, loadConfigFile, type Config } from "../config/config.ts";
import { configReload } from "../config/reload.ts";
import { DEMO_ORIGIN, DEMO_SITE, devConfigDocument } from "../config/dev-defaults.ts";
import { startLocalHomeserver } from "../matrix/local-homeserver.ts";
import { startService, writeRegistration } from "../app/app.ts";
import { startDemoServer } from "../widget/serve.ts";
import { BACKFILL_EXIT, DEFAULT_PAGE_SIZE, runBackfill } from "../features/backfill/run.ts";

const { values } = parseArgs({
  options: {
    config: { type: "string" },
    "no-worker": { type: "boolean" },
    backfill: { type: "boolean" },
    "backfill-site": { type: "string" },
  },
});
const configPath = values.config ?? process.env.COMMENT_SERVICE_CONFIG;

/** Configuration problems end start-up with one clear line (exit 2), not a stack trace. */
function orExit<T>(step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`comment-service: ${err.message}`);
    process.exit(2);
  }
}

const config: Config = orExit(() => (configPath ? loadConfigFile(configPath) : buildConfig(devConfigDocument())));
const registration = orExit(() => writeRegistration(config));
if (!configPath) {
  console.error("comment-service: starting the local Synapse (the first run provisions it, about a minute)");
  startLocalHomeserver({
    instance: "dev",
    port: 8008,
    serverName: config.matrix.serverName,
    registrationFile: registration,
  });
}

if (values.backfill || values["backfill-site"]) {
  const code = await runBackfill(config, {
    siteId: values["backfill-site"] ?? null,
    pageSize: DEFAULT_PAGE_SIZE,
    out: process.stdout,
  });
  if (code !== BACKFILL_EXIT.ok) process.exit(code);
}

const service = await startService(config, { worker: !values["no-worker"] });
// The demo page is served from the demo site's own origin, so it embeds the widget as any site would: cross-origin.
const demoServer = configPath
  ? null
  : await startDemoServer({ apiUrl: service.url, site: DEMO_SITE, port: Number(new URL(DEMO_ORIGIN).port) });
const demo = demoServer ? ` — demo ${demoServer.url}/ (site "${DEMO_SITE}", origin ${DEMO_ORIGIN})` : "";
console.log(
  `comment-service listening on ${service.url}${demo} — dashboard ${service.url}/admin (appservice registration: ${registration})`,
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void Promise.all([service.stop(), demoServer?.close()]).then(() => {
      if (!configPath)
        console.error(
          "comment-service: stopped; the local Synapse keeps running for a fast restart (stop it with: npm run homeserver -- stop)",
        );
      process.exit(0);
    });
  });
}

if (configPath) {
  let running = config;
  process.on("SIGHUP", () => {
    const { logger } = service.services;
    let next: Config;
    try {
      next = loadConfigFile(configPath);
    } catch (err) {
      // The instance goes on as it was configured: a bad edit is the operator's to fix, not a crash.
      logger.error(
        { event: "configuration-not-reloaded", error: (err as Error).message },
        "configuration not reloaded",
      );
      return;
    }
    const { logLevel, onRestart } = configReload(running, next);
    running = { ...running, log: { ...running.log, level: next.log.level } };
    const say = () =>
      onRestart.length > 0
        ? logger.warn(
            { event: "configuration-reloaded", logLevel: next.log.level, onRestart },
            `configuration reloaded; changes to ${onRestart.join(", ")} take effect on restart`,
          )
        : logger.info({ event: "configuration-reloaded", logLevel: next.log.level }, "configuration reloaded");
    const switchLevel = () => {
      if (logLevel !== null) logger.level = logLevel;
    };
    // Said at whichever of the two levels shows it: before a switch to a quieter one, after one to a louder.
    if (logger.isLevelEnabled("info")) {
      say();
      switchLevel();
    } else {
      switchLevel();
      say();
    }
  });
}
