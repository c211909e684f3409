// Starting and stopping one service instance.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError, appserviceUrl, type Config } from "../config/config.ts";
import { MatrixNames, registrationYaml } from "../matrix/names.ts";
import { schema } from "./graphql-schema.ts";
import { apiRoutes } from "./api-document.ts";
import { createHttpServer } from "./http-server.ts";
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
    throw new ConfigError(`configuration key "matrix.registration_file": cannot write ${config.matrix.registrationFile}: ${(err as Error).message}`);
  }
  return config.matrix.registrationFile;
}

export async function startService(config: Config, options: { worker?: boolean; log?: (m: string) => void } = {}): Promise<RunningService> {
  const services = await createServices(config, options.log);
  const server = createHttpServer(services, schema, apiRoutes);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.server.listenPort, config.server.listenHost, () => resolve());
  });
  const stopBackgroundPasses = await startBackgroundPasses(services, options.worker ?? true);
  services.homeserver.pingAppservice(config.matrix.appserviceId).catch((err) =>
    services.log(`homeserver: appservice ping failed (${(err as Error).message}); transactions will arrive when it retries`),
  );
  const { port } = server.address() as AddressInfo;
  return {
    services,
    server,
    url: `http://${config.server.listenHost}:${port}`,
    async stop() {
      await stopBackgroundPasses();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.signals.close();
      await services.sharedRateLimits?.close();
      await services.db.$disconnect();
    },
  };
}
