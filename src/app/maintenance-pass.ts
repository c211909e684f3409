// Periodic clean-up of rows that only matter for a while.
import { PASS_INTERVALS_MS } from "../config/limits.ts";
import type { Db } from "../db/client.ts";
import { PeriodicPass } from "../cluster/periodic-pass.ts";
import type { BackgroundPass } from "../cluster/leader.ts";
import { pruneLiveEvents } from "../sse/live-event-store.ts";
import { SubmissionStore } from "../queue/submission-store.ts";
import { WebhookStore } from "../features/webhooks/webhook-store.ts";

/** How far back SSE clients can resume with Last-Event-ID. */
export const LIVE_EVENT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Sent submissions are kept a while for support questions; failed ones stay until handled. */
export const SENT_SUBMISSION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Delivered (and skipped) webhook messages stay in their endpoint's log this long; failed ones until it is enabled again. */
export const DELIVERED_WEBHOOK_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** What maintenance prunes. */
type Prunable = { pruneExpired(now: Date): Promise<unknown> };
export interface MaintenanceServices {
  db: Db;
  idempotency: Prunable;
  challenges: Prunable;
  siteWriteAuth: { signatures: Prunable };
  log: (message: string) => void;
}

export async function runMaintenance(services: MaintenanceServices, now = new Date()): Promise<void> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  await services.idempotency.pruneExpired(now);
  await services.challenges.pruneExpired(now);
  await services.siteWriteAuth.signatures.pruneExpired(now);
  await pruneLiveEvents(services.db, before(LIVE_EVENT_RETENTION_MS));
  await new SubmissionStore(services.db).pruneSent(before(SENT_SUBMISSION_RETENTION_MS));
  await new WebhookStore(services.db).pruneSettled(before(DELIVERED_WEBHOOK_RETENTION_MS));
}

/** Maintenance every interval while started (not at start): a background pass, run by the cluster's leader. */
export function maintenancePass(
  services: MaintenanceServices,
  intervalMs = PASS_INTERVALS_MS.maintenance,
): BackgroundPass {
  const pass = new PeriodicPass(() =>
    runMaintenance(services).catch((err) => services.log(`maintenance: ${(err as Error).message}`)),
  );
  return { start: () => pass.start(intervalMs, { runNow: false }), stop: () => pass.stop() };
}
