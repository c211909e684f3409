// Webhook endpoints of a site (its owner's and the operator's API; [sites.<id>.webhooks.<name>]
// declarations), and the events they are sent: recorded by the projection in the transaction
// that changes the comment (record), or by moderation for a held comment (commentHeld).
import { randomBytes } from "node:crypto";
import type { Db, Tx, WebhookDelivery, WebhookEndpoint } from "../../db/client.ts";
import { DomainError, notFound, validationError } from "../../core/errors.ts";
import { WEBHOOK_LIMITS } from "../../config/limits.ts";
import { WEBHOOK_EVENT_TYPES } from "../../config/config.ts";
import type { CommentChange } from "../../projection/page-context.ts";
import { checkPath, type Sites } from "../sites/sites.ts";
import { checkDestination } from "./destination.ts";
import { messageIdOf, subscribes, type WebhookEvent } from "./events.ts";
import { newWebhookSecret } from "./signing.ts";
import { WebhookStore } from "./webhook-store.ts";

/** An endpoint as the API shows it (never its secret, but when it is made or rotated). */
export interface EndpointView {
  id: string;
  siteId: string;
  url: string;
  events: string[];
  source: string;
  status: string;
  /** Events recorded while it was disabled, not sent (enabling it sends them). */
  skippedCount: number;
  disabledReason: string | null;
  disabledAt: Date | null;
  createdAt: Date;
}

const view = (e: WebhookEndpoint, skippedCount: number): EndpointView => ({
  id: e.id,
  siteId: e.siteId,
  url: e.url,
  events: JSON.parse(e.events) as string[],
  source: e.source,
  status: e.status,
  skippedCount,
  disabledReason: e.disabledReason,
  disabledAt: e.disabledAt,
  createdAt: e.createdAt,
});

export interface EndpointChanges {
  url?: string | null;
  events?: string[] | null;
  /** true enables a disabled endpoint (its failed deliveries are retried, its skipped events sent), false disables it. */
  enabled?: boolean | null;
}

/** Deliveries one log read lists at most. */
export const MAX_LOG_ROWS = 100;

export class Webhooks {
  readonly store: WebhookStore;

  constructor(
    db: Db,
    private readonly sites: Sites,
    private readonly options: { allowPrivateDestinations: boolean },
    /** Called after an event was recorded outside the projection (its deliveries can start). */
    private readonly recorded: () => void = () => {},
  ) {
    this.store = new WebhookStore(db);
  }

  /** Brings the declared endpoints ([sites.<id>.webhooks.<name>]) into the database. */
  syncDeclarations(): Promise<void> {
    return this.store.syncDeclarations(new Map([...this.sites.declared].map(([id, d]) => [id, d.webhooks])));
  }

  // ------------------------------------------------------------- events --

  /** The projection's hook (src/projection/page-context.ts): a comment's change, in its applying transaction. */
  readonly record = (tx: Tx, change: CommentChange): Promise<void> =>
    this.enqueue(tx, {
      type: `comment.${change.kind}`,
      siteId: change.siteId,
      pageSlug: change.pageSlug,
      eventId: change.eventId,
      revision: change.revision,
    });

  /**
   * comment.held: call it from moderation when a comment is held for review, in the transaction
   * that holds it (or with the database client, a transaction of its own). `eventId` names the
   * comment as the read API does; `revision` tells a second hold of the same comment from the
   * first ("" if it can be held once only). Its payload's `comment` is the comment as the read
   * API shows it then (null when the read API does not show held comments).
   */
  async commentHeld(
    tx: Tx | Db,
    held: { siteId: string; pageSlug: string; eventId: string; revision: string },
  ): Promise<void> {
    await this.enqueue(tx as Tx, { type: "comment.held", ...held });
    this.recorded();
  }

  private async enqueue(tx: Tx, event: WebhookEvent): Promise<void> {
    const endpoints = await this.store.endpointsOf(tx, event.siteId);
    const wanted = endpoints.filter((e) => subscribes(JSON.parse(e.events) as string[], event.type));
    if (wanted.length === 0) return;
    await this.store.enqueue(tx, wanted, {
      messageId: messageIdOf(event),
      siteId: event.siteId,
      pageSlug: event.pageSlug,
      eventType: event.type,
      commentEventId: event.eventId,
      now: new Date(),
    });
  }

  // ---------------------------------------------------------- endpoints --

  async create(
    siteId: string,
    input: { url: string; events: string[] | null },
  ): Promise<{ endpoint: EndpointView; secret: string }> {
    await this.sites.requireWritable(siteId);
    checkDestination(input.url, this.options.allowPrivateDestinations);
    if ((await this.store.countForSite(siteId)) >= WEBHOOK_LIMITS.maxEndpointsPerSite)
      throw new DomainError(
        "too-many-webhooks",
        409,
        `Site ${siteId} has ${WEBHOOK_LIMITS.maxEndpointsPerSite} webhook endpoints already; delete one first.`,
      );
    const secret = newWebhookSecret();
    const endpoint = await this.store.create({
      id: `ep_${randomBytes(12).toString("hex")}`,
      siteId,
      url: input.url,
      secret,
      events: uniqueEvents(input.events),
    });
    return { endpoint: view(endpoint, 0), secret };
  }

  async list(siteId: string): Promise<EndpointView[]> {
    await this.sites.requireReadable(siteId);
    return this.views(await this.store.list(siteId));
  }

  async get(siteId: string, id: string): Promise<EndpointView> {
    return (await this.views([await this.require(siteId, id)]))[0]!;
  }

  private async views(endpoints: WebhookEndpoint[]): Promise<EndpointView[]> {
    const skipped = await this.store.skippedCounts(endpoints.map((e) => e.id));
    return endpoints.map((e) => view(e, skipped.get(e.id) ?? 0));
  }

  async update(siteId: string, id: string, changes: EndpointChanges): Promise<EndpointView> {
    const endpoint = await this.require(siteId, id);
    if ((changes.url != null || changes.events != null) && endpoint.source === "config") throw configDeclared(id);
    if (changes.url != null) checkDestination(changes.url, this.options.allowPrivateDestinations);
    const updated = await this.store.update(id, {
      ...(changes.url != null ? { url: changes.url } : {}),
      ...(changes.events != null ? { events: JSON.stringify(uniqueEvents(changes.events)) } : {}),
    });
    if (changes.enabled === true && updated.status !== "active") await this.store.enable(id, new Date());
    if (changes.enabled === false && updated.status === "active")
      await this.store.disable(id, "disabled by its owner", new Date());
    return this.get(siteId, id);
  }

  async rotateSecret(siteId: string, id: string): Promise<{ endpoint: EndpointView; secret: string }> {
    const endpoint = await this.require(siteId, id);
    if (endpoint.source === "config") throw configDeclared(id);
    const secret = newWebhookSecret();
    return { endpoint: (await this.views([await this.store.update(id, { secret })]))[0]!, secret };
  }

  async remove(siteId: string, id: string): Promise<void> {
    const endpoint = await this.require(siteId, id);
    if (endpoint.source === "config") throw configDeclared(id);
    await this.store.remove(id);
  }

  /** The delivery log: newest first, `limit` rows before the delivery id `before`. */
  async deliveries(siteId: string, id: string, before: number | null, limit: number): Promise<WebhookDelivery[]> {
    await this.require(siteId, id);
    if (limit < 1 || limit > MAX_LOG_ROWS)
      throw validationError("Invalid limit.", [{ field: "limit", message: `1-${MAX_LOG_ROWS}` }]);
    return this.store.deliveries(id, before, limit);
  }

  private async require(siteId: string, id: string): Promise<WebhookEndpoint> {
    checkPath(siteId);
    await this.sites.requireReadable(siteId);
    const endpoint = await this.store.find(siteId, id);
    if (!endpoint) throw notFound("webhook-not-found", `Site ${siteId} has no webhook endpoint ${id}.`);
    return endpoint;
  }
}

function uniqueEvents(events: string[] | null): string[] {
  const unknown = (events ?? []).findIndex((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown >= 0)
    throw validationError("Unknown event type.", [
      { field: `events[${unknown}]`, message: `one of ${WEBHOOK_EVENT_TYPES.join(", ")}` },
    ]);
  return [...new Set(events ?? [])];
}

const configDeclared = (id: string) =>
  new DomainError(
    "config-declared",
    409,
    `Webhook endpoint ${id} is declared in [sites]; change it in the configuration.`,
  );
