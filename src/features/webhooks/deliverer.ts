// Delivers the queued webhook messages (WebhookDelivery rows): claims due rows with a lease (so
// instances sharing the database deliver each once between them), renews the lease while an
// attempt runs, and records each attempt's outcome on the row: delivered (a 2xx), retried with
// exponential backoff and jitter, or — once the event is older than webhooks.give_up_after_ms —
// failed, and the endpoint disabled with the reason (its owner sees it on the endpoint and in the
// log). The body is rendered at the first attempt and kept, so every attempt (also after a crash,
// once the lease runs out) sends the same body with the same webhook-id.
import type { Db } from "../../db/client.ts";
import type { Provider } from "../../db/database-url.ts";
import { PeriodicPass } from "../../cluster/periodic-pass.ts";
import { retryDelayMs } from "../../queue/backoff.ts";
import { WEBHOOK_LIMITS } from "../../config/limits.ts";
import { deliver, type AttemptResult, type DestinationOptions } from "./destination.ts";
import { messageBody, type WebhookEventType } from "./events.ts";
import { webhookHeaders } from "./signing.ts";
import { WebhookStore, type ClaimedDelivery, type DeliveryClaim } from "./webhook-store.ts";

/**
 * The comment as the read API shows it (null: it does not show it) and its link on its page; a
 * comment held for review (eventId null: not in Matrix yet) is shown to nobody, linked to its page.
 */
export type RenderComment = (
  siteId: string,
  pageSlug: string,
  eventId: string | null,
) => Promise<{ comment: unknown; link: string | null }>;

export interface DelivererOptions extends DestinationOptions {
  provider: Provider;
  retryBaseMs: number;
  giveUpAfterMs: number;
  leaseMs: number;
  pollIntervalMs: number;
  log: (message: string) => void;
  /** Each attempt's outcome and latency (metrics). */
  onAttempt?: (outcome: "delivered" | "retried" | "failed", latencyMs: number) => void;
}

export class WebhookDeliverer {
  private readonly store: WebhookStore;
  private readonly pass = new PeriodicPass(() => this.claimDue());
  private readonly renewal = new PeriodicPass(() => this.renewLeases());
  private readonly inFlight = new Map<number, { claim: DeliveryClaim; done: Promise<void> }>();

  constructor(
    db: Db,
    private readonly render: RenderComment,
    private readonly options: DelivererOptions,
  ) {
    this.store = new WebhookStore(db);
  }

  start(): void {
    this.pass.start(this.options.pollIntervalMs);
    this.renewal.start(Math.max(1, Math.floor(this.options.leaseMs / 3)), { runNow: false });
  }

  /** Stops claiming and waits for the attempts in flight (each is bounded by webhooks.timeout_ms). */
  async stop(): Promise<void> {
    await this.pass.stop();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()].map((w) => w.done));
    await this.renewal.stop();
  }

  /** New messages were queued (here or, through the signals, on another instance). */
  kick(): void {
    this.pass.kick();
  }

  private async claimDue(): Promise<void> {
    try {
      const free = WEBHOOK_LIMITS.concurrency - this.inFlight.size;
      if (free <= 0 || !this.pass.started) return;
      const now = new Date();
      const claimed = await this.store.claim(
        this.options.provider,
        now,
        new Date(now.getTime() + this.options.leaseMs),
        free,
        { perEndpoint: WEBHOOK_LIMITS.perEndpointConcurrency, perSite: WEBHOOK_LIMITS.perSiteConcurrency },
      );
      for (const delivery of claimed) {
        const claim = { id: delivery.id, attempts: delivery.attempts };
        const done = this.attempt(delivery, claim).finally(() => {
          this.inFlight.delete(claim.id);
          this.pass.kick();
        });
        this.inFlight.set(claim.id, { claim, done });
      }
    } catch (err) {
      this.options.log(`webhooks: claiming deliveries: ${(err as Error).message}`);
    }
  }

  private async renewLeases(): Promise<void> {
    const leaseUntil = new Date(Date.now() + this.options.leaseMs);
    try {
      await Promise.all([...this.inFlight.values()].map(({ claim }) => this.store.renewLease(claim, leaseUntil)));
    } catch (err) {
      this.options.log(`webhooks: renewing leases: ${(err as Error).message}`);
    }
  }

  private async attempt(delivery: ClaimedDelivery, claim: DeliveryClaim): Promise<void> {
    try {
      let body = delivery.payload;
      if (body === null) {
        // comment.held names the held submission (src/features/moderation/), not a Matrix event.
        const eventId = delivery.eventType === "comment.held" ? null : delivery.commentEventId;
        const { comment, link } = await this.render(delivery.siteId, delivery.pageSlug, eventId);
        body = messageBody(
          {
            type: delivery.eventType as WebhookEventType,
            siteId: delivery.siteId,
            pageSlug: delivery.pageSlug,
            eventId: delivery.commentEventId,
          },
          delivery.createdAt,
          comment,
          link,
        );
        await this.store.setPayload(claim, body);
      }
      const result = await deliver(
        delivery.url,
        webhookHeaders(delivery.secret, delivery.messageId, body, new Date()),
        body,
        this.options,
      );
      await this.recordAttempt(delivery, claim, result);
    } catch (err) {
      // Recording failed (database down): the lease runs out and the row is claimed again.
      this.options.log(`webhooks: delivery ${delivery.id}: ${(err as Error).message}`);
    }
  }

  private async recordAttempt(delivery: ClaimedDelivery, claim: DeliveryClaim, result: AttemptResult): Promise<void> {
    const now = new Date();
    const last = { lastStatus: result.status, lastError: result.error, lastLatencyMs: result.latencyMs };
    if (result.error === null) {
      await this.record(claim, { status: "delivered", ...last, nextAttemptAt: null, completedAt: now });
      this.options.onAttempt?.("delivered", result.latencyMs);
      return;
    }
    const delay = retryDelayMs(claim.attempts, this.options.retryBaseMs, Math.random, WEBHOOK_LIMITS.maxRetryDelayMs);
    const next = new Date(now.getTime() + delay);
    if (next.getTime() - delivery.createdAt.getTime() <= this.options.giveUpAfterMs) {
      await this.record(claim, { status: "pending", ...last, nextAttemptAt: next, completedAt: null });
      this.options.onAttempt?.("retried", result.latencyMs);
      return;
    }
    if (await this.record(claim, { status: "failed", ...last, nextAttemptAt: null, completedAt: now })) {
      const reason = `${delivery.eventType} ${delivery.messageId} failed ${claim.attempts} times over ${spanText(now.getTime() - delivery.createdAt.getTime())}; last: ${result.error}`;
      await this.store.disable(delivery.endpointId, reason, now);
      this.options.log(`webhooks: endpoint ${delivery.endpointId} disabled: ${reason}`);
    }
    this.options.onAttempt?.("failed", result.latencyMs);
  }

  private async record(claim: DeliveryClaim, outcome: Parameters<WebhookStore["record"]>[1]): Promise<boolean> {
    const recorded = await this.store.record(claim, outcome);
    if (!recorded)
      this.options.log(`webhooks: delivery ${claim.id} attempt ${claim.attempts} lost its claim; outcome not recorded`);
    return recorded;
  }
}

/** A span of time as an endpoint's owner reads it: "3.2 s", "42 s", "14 min", "24 h", "25 h 3 min". */
export function spanText(ms: number): string {
  if (ms < 59_500) return `${(ms / 1000).toFixed(ms < 9_950 ? 1 : 0)} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
}
