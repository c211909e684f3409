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
import { maintenancePass } from "./maintenance-pass.ts";
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
  // Background passes run on the cluster's leader, one line each.
  services.leader.run("retirement", services.retirementPass);
  services.leader.run("convergence", services.convergencePass);
  services.leader.run("maintenance", maintenancePass(services));
  // The passes and the bot write to Matrix like the worker, so an API-only instance runs none:
  // it never stands for leader (its appservice endpoint still stores the bot's events for one
  // that does). The bot's inbox rows are leased, so every worker instance may drain it.
  if (options.worker ?? true) {
    services.worker.start();
    services.botInbox.start();
    await services.leader.start();
  }
  await services.liveEventPoller.start();
  services.homeserver.pingAppservice(config.matrix.appserviceId).catch((err) =>
    services.log(`homeserver: appservice ping failed (${(err as Error).message}); transactions will arrive when it retries`),
  );
  const { port } = server.address() as AddressInfo;
  return {
    services,
    server,
    url: `http://${config.server.listenHost}:${port}`,
    async stop() {
      services.liveEventPoller.stop();
      await services.leader.stop();
      await services.botInbox.stop();
      await services.worker.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.signals.close();
      await services.db.$disconnect();
    },
  };
}
