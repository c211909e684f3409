// Every background pass of an instance, in one place. Each runs on PeriodicPass
// (src/cluster/periodic-pass.ts): every interval and when kicked, one run at a time.
// Not passes, so not here: the queue worker's claim loop (woken by new submissions, its lease
// renewal a PeriodicPass of its own), the leader election's beat, an SSE stream's keep-alive.
import { maintenancePass } from "./maintenance-pass.ts";
import type { Services } from "./services.ts";

/**
 * Starts the passes; resolves the function that stops them. `worker` false: an API-only
 * instance, which runs none of the passes that write to Matrix.
 */
export async function startBackgroundPasses(services: Services, worker: boolean): Promise<() => Promise<void>> {
  // On the cluster's leader only, one line each.
  services.leader.run("retirement", services.retirementPass);
  services.leader.run("convergence", services.convergencePass);
  services.leader.run("maintenance", maintenancePass(services));
  services.leader.run("quarantine-retries", services.quarantines);
  services.leader.run("room-upgrades", services.upgrades);
  services.leader.run("projection-repairs", services.repairPass);
  services.leader.run("projection-gaps", services.projectionGaps);
  services.leader.run("ban-expiry", services.banExpiryPass);
  // The passes and the bot write to Matrix like the worker, so an API-only instance runs none:
  // it never stands for leader (its appservice endpoint still stores the bot's events for one
  // that does). The bot's inbox rows are leased, so every worker instance may drain it.
  if (worker) {
    services.worker.start();
    services.botInbox.start();
    // Deliveries are leased rows: every worker instance may deliver.
    services.webhookDeliverer.start();
    await services.leader.start();
  }
  // On every instance: live events reach the streams open on it (a safety poll besides the signals).
  await services.liveEventPoller.start();
  return async () => {
    await services.liveEventPoller.stop();
    await services.leader.stop();
    await services.botInbox.stop();
    await services.webhookDeliverer.stop();
    await services.worker.stop();
  };
}
