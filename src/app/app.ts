// Starting and stopping one service instance.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError, appserviceUrl, type Config } from "../config/config.ts";
import { MatrixNames, registrationYaml } from "../matrix/names.ts";
import { schema } from "./graphql-schema.ts";
import { apiRoutes } from "./api-document.ts";
import { createHttpServer, createMetricsServer } from "./http-server.ts";
import { createLogger, routeMatrixSdkLogs } from "./logger.ts";
import type { DestinationStream } from "pino";
import { startBackgroundPasses } from "./background-passes.ts";
import { createServices, type Services } from "./services.ts";

export interface RunningService {
  services: Services;
  server: Server;
  /** The base URL the service listens on. */
  url: string;
  stop(): Promise<void>;
}

/** Writes the appservice registration the homeserver needs for this configuration. */
export function writeRegistration(config: Config): string {
  const yaml = registrationYaml({
    id: config.matrix.appserviceId,
    url: appserviceUrl(config),
    asToken: config.matrix.asToken,
    hsToken: config.matrix.hsToken,
    names: new MatrixNames(config.matrix.namespacePrefix, config.matrix.serverName),
  });
  try {
    mkdirSync(dirname(config.matrix.registrationFile), { recursive: true });
    writeFileSync(config.matrix.registrationFile, yaml, { mode: 0o600 });
  } catch (err) {
    throw new ConfigError(
      `configuration key "matrix.registration_file": cannot write ${config.matrix.registrationFile}: ${(err as Error).message}`,
    );
  }
  return config.matrix.registrationFile;
}

export interface StartOptions {
  worker?: boolean;
  /** Where the service's messages go instead of the logger (tests). */
  log?: (m: string) => void;
  /** Where the JSON log lines go (default stdout); without it, a `log` callback silences them (tests). */
  logDestination?: DestinationStream;
}

export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const logger = createLogger(
    options.log && !options.logDestination ? "silent" : config.log.level,
    options.logDestination,
  );
  routeMatrixSdkLogs(logger);
  const services = await createServices(config, logger, options.log);
  const http = createHttpServer(services, schema, apiRoutes);
  const server = http.server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.server.listenPort, config.server.listenHost, () => resolve());
  });
  const metricsServer = config.metrics.listenPort > 0 ? createMetricsServer(services) : null;
  if (metricsServer) {
    await new Promise<void>((resolve, reject) => {
      metricsServer.once("error", reject);
      metricsServer.listen(config.metrics.listenPort, config.metrics.listenHost, () => resolve());
    });
  }
  const stopBackgroundPasses = await startBackgroundPasses(services, options.worker ?? true);
  services.homeserver
    .pingAppservice(config.matrix.appserviceId)
    .catch((err) =>
      services.log(
        `homeserver: appservice ping failed (${(err as Error).message}); transactions will arrive when it retries`,
      ),
    );
  const { port } = server.address() as AddressInfo;
  services.logger.info(
    { event: "listening", port, metricsPort: config.metrics.listenPort || null, worker: options.worker ?? true },
    "listening",
  );
  return {
    services,
    server,
    url: `http://${config.server.listenHost}:${port}`,
    async stop() {
      // Graceful: readiness turns false; no new connections; idle keep-alive connections close;
      // SSE streams end with a retry hint (clients reconnect elsewhere); requests in flight
      // finish (up to server.shutdown_timeout_ms); then the worker finishes its claimed
      // submissions and records them (no lease is left held), the leader lock is released and
      // the database closed.
      services.health.stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const streams = http.endStreams();
      if (streams > 0) services.log(`stopping: ended ${streams} event stream(s) with a retry hint`);
      const deadline = Date.now() + config.server.shutdownTimeoutMs;
      while (http.inFlight > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        server.closeIdleConnections();
      }
      server.closeAllConnections();
      await closed;
      await stopBackgroundPasses();
      if (metricsServer) {
        metricsServer.closeAllConnections();
        await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      }
      services.logger.info({ event: "stopped" }, "stopped");
      await services.signals.close();
      await services.sharedRateLimits?.close();
      await services.db.$disconnect();
    },
  };
}
