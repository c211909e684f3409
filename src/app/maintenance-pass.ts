// Periodic clean-up of rows that only matter for a while.
import type { BackgroundPass } from "../cluster/leader.ts";
import type { Services } from "./services.ts";

export const MAINTENANCE_INTERVAL_MS = 10 * 60 * 1000;
/** How far back SSE clients can resume with Last-Event-ID. */
export const LIVE_EVENT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Sent submissions are kept a while for support questions; failed ones stay until handled. */
export const SENT_SUBMISSION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export async function runMaintenance(services: Services, now = new Date()): Promise<void> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  await services.idempotency.pruneExpired(now);
  await services.challenges.pruneExpired(now);
  await services.siteWriteAuth.signatures.pruneExpired(now);
  await services.db.liveEvent.deleteMany({ where: { createdAt: { lt: before(LIVE_EVENT_RETENTION_MS) } } });
  await services.db.submission.deleteMany({ where: { status: "sent", completedAt: { lt: before(SENT_SUBMISSION_RETENTION_MS) } } });
}

/** Maintenance every interval while started: a background pass, run by the cluster's leader. */
export function maintenancePass(services: Services, intervalMs = MAINTENANCE_INTERVAL_MS): BackgroundPass {
  let timer: NodeJS.Timeout | null = null;
  return {
    start() {
      timer ??= setInterval(() => {
        runMaintenance(services).catch((err) => services.log(`maintenance: ${(err as Error).message}`));
      }, intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
