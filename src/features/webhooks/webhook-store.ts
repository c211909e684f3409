// The WebhookEndpoint and WebhookDelivery tables. Deliveries are a durable queue: written in the
// projection's applying transaction, claimed with a lease (one statement; FOR UPDATE SKIP LOCKED
// on PostgreSQL, so instances claim side by side and never the same row), their outcomes
// recorded only by the claim that holds them (its attempt number tells it from a later claim).
// Claims, renewals and outcomes run on the driver, prepared once (src/db/driver-statements.ts).
import type { Db, Tx } from "../../db/client.ts";
import { driverStatements, type WebhookDelivery, type WebhookEndpoint } from "../../db/client.ts";
import type { Provider } from "../../db/database-url.ts";
import { asDate, type DriverStatements } from "../../db/driver-statements.ts";
import type { WebhookDeclaration } from "../../config/config.ts";

/** A claim is its row on its attempt. */
export interface DeliveryClaim {
  id: number;
  attempts: number;
}

/** What an attempt leaves on its row. */
export interface DeliveryOutcome {
  status: "pending" | "delivered" | "failed";
  lastStatus: number | null;
  lastError: string | null;
  lastLatencyMs: number;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
}

/** A claimed delivery with what sending it needs. */
export type ClaimedDelivery = WebhookDelivery & { url: string; secret: string };

// Fair claims: one site's (or endpoint's) receivers that never answer must not hold every slot.
// A due row is claimable while its endpoint has fewer than $4 attempts in flight and its site
// fewer than $5 (counted over all instances: rows leased and not expired), and the rows are taken
// least busy site first, a site's endpoints in turn, oldest first within them.
const claimSql = (lock: string) => `
  WITH "busyEndpoint" AS (
    SELECT "endpointId", COUNT(*) AS "n" FROM "WebhookDelivery"
    WHERE "status" = 'pending' AND "leaseUntil" >= $1 GROUP BY "endpointId"
  ), "busySite" AS (
    SELECT "siteId", COUNT(*) AS "n" FROM "WebhookDelivery"
    WHERE "status" = 'pending' AND "leaseUntil" >= $1 GROUP BY "siteId"
  ), "due" AS (
    SELECT d."id", d."siteId", d."nextAttemptAt",
      ROW_NUMBER() OVER (PARTITION BY d."endpointId" ORDER BY d."nextAttemptAt", d."id") AS "turn",
      COALESCE(be."n", 0) AS "endpointBusy"
    FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
      LEFT JOIN "busyEndpoint" be ON be."endpointId" = d."endpointId"
    WHERE d."status" = 'pending' AND d."nextAttemptAt" <= $1 AND (d."leaseUntil" IS NULL OR d."leaseUntil" < $1)
      AND e."status" = 'active'
  ), "ranked" AS (
    SELECT u."id", u."nextAttemptAt",
      ROW_NUMBER() OVER (PARTITION BY u."siteId" ORDER BY u."turn", u."nextAttemptAt", u."id") + COALESCE(bs."n", 0) AS "siteLoad"
    FROM "due" u LEFT JOIN "busySite" bs ON bs."siteId" = u."siteId"
    WHERE u."turn" + u."endpointBusy" <= $4
  )
  UPDATE "WebhookDelivery" SET "leaseUntil" = $2, "attempts" = "attempts" + 1
  WHERE "status" = 'pending' AND ("leaseUntil" IS NULL OR "leaseUntil" < $1) AND "id" IN (
    SELECT w."id" FROM "WebhookDelivery" w WHERE w."id" IN (
      SELECT r."id" FROM "ranked" r WHERE r."siteLoad" <= $5 ORDER BY r."siteLoad", r."nextAttemptAt", r."id" LIMIT $3
    )
    ${lock}
  )
  RETURNING *`;
const CLAIM: Record<Provider, string> = { sqlite: claimSql(""), postgres: claimSql("FOR UPDATE SKIP LOCKED") };
const HELD = `"id" = $1 AND "attempts" = $2 AND "status" = 'pending'`;

type DeliveryRow = Omit<WebhookDelivery, "nextAttemptAt" | "leaseUntil" | "createdAt" | "completedAt"> &
  Record<"nextAttemptAt" | "createdAt", string | Date> &
  Record<"leaseUntil" | "completedAt", string | Date | null>;

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  ...row,
  nextAttemptAt: asDate(row.nextAttemptAt)!,
  leaseUntil: asDate(row.leaseUntil),
  createdAt: asDate(row.createdAt)!,
  completedAt: asDate(row.completedAt),
});

export const configEndpointId = (siteId: string, name: string) => `config-${siteId}-${name}`;

export class WebhookStore {
  constructor(private readonly db: Db) {}

  private get driver(): DriverStatements {
    return driverStatements(this.db);
  }

  // ------------------------------------------------------------ endpoints --

  countForSite(siteId: string): Promise<number> {
    return this.db.webhookEndpoint.count({ where: { siteId } });
  }

  create(data: {
    id: string;
    siteId: string;
    url: string;
    secret: string;
    events: string[];
  }): Promise<WebhookEndpoint> {
    return this.db.webhookEndpoint.create({
      data: { ...data, source: "api", events: JSON.stringify(data.events) },
    });
  }

  find(siteId: string, id: string): Promise<WebhookEndpoint | null> {
    return this.db.webhookEndpoint.findFirst({ where: { id, siteId } });
  }

  list(siteId: string): Promise<WebhookEndpoint[]> {
    return this.db.webhookEndpoint.findMany({ where: { siteId }, orderBy: { createdAt: "asc" } });
  }

  update(
    id: string,
    data: Partial<Pick<WebhookEndpoint, "url" | "secret" | "events" | "status" | "disabledReason" | "disabledAt">>,
  ): Promise<WebhookEndpoint> {
    return this.db.webhookEndpoint.update({ where: { id }, data });
  }

  /** Deletes an endpoint and its deliveries. */
  async remove(id: string): Promise<void> {
    await this.db.$transaction([
      this.db.webhookDelivery.deleteMany({ where: { endpointId: id } }),
      this.db.webhookEndpoint.deleteMany({ where: { id } }),
    ]);
  }

  /** Makes the declared endpoints of every site exactly `declared` (by site); other config endpoints go. */
  async syncDeclarations(declared: Map<string, WebhookDeclaration[]>): Promise<void> {
    const keep: string[] = [];
    for (const [siteId, declarations] of declared) {
      for (const d of declarations) {
        const id = configEndpointId(siteId, d.name);
        keep.push(id);
        const fields = { url: d.url, secret: d.secret, events: JSON.stringify(d.events) };
        await this.db.webhookEndpoint.upsert({
          where: { id },
          create: { id, siteId, source: "config", ...fields },
          update: fields,
        });
      }
    }
    const gone = await this.db.webhookEndpoint.findMany({
      where: { source: "config", id: { notIn: keep } },
      select: { id: true },
    });
    for (const { id } of gone) await this.remove(id);
  }

  // ----------------------------------------------------------- deliveries --

  /** The site's endpoints, in the applying transaction. */
  endpointsOf(tx: Tx, siteId: string): Promise<Array<Pick<WebhookEndpoint, "id" | "events" | "status">>> {
    return tx.webhookEndpoint.findMany({ where: { siteId }, select: { id: true, events: true, status: true } });
  }

  /**
   * Queues a message for endpoints, once each (endpoints that have it already are left alone):
   * pending for the active ones, skipped for the disabled ones (settled at once, in the log, sent
   * if the endpoint is enabled again).
   */
  async enqueue(
    tx: Tx,
    endpoints: Array<Pick<WebhookEndpoint, "id" | "status">>,
    message: {
      messageId: string;
      siteId: string;
      pageSlug: string;
      eventType: string;
      commentEventId: string;
      now: Date;
    },
  ): Promise<void> {
    const existing = await tx.webhookDelivery.findMany({
      where: { messageId: message.messageId, endpointId: { in: endpoints.map((e) => e.id) } },
      select: { endpointId: true },
    });
    const has = new Set(existing.map((d) => d.endpointId));
    const { now, ...fields } = message;
    const missing = endpoints.filter((e) => !has.has(e.id));
    if (missing.length === 0) return;
    await tx.webhookDelivery.createMany({
      data: missing.map((e) => ({
        ...fields,
        endpointId: e.id,
        createdAt: now,
        nextAttemptAt: now,
        ...(e.status === "active" ? {} : { status: "skipped", completedAt: now }),
      })),
    });
  }

  /**
   * Claims up to `limit` due deliveries of active endpoints (attempts counts this one), keeping
   * each endpoint within `perEndpoint` attempts in flight and each site within `perSite`.
   */
  async claim(
    provider: Provider,
    now: Date,
    leaseUntil: Date,
    limit: number,
    shares: { perEndpoint: number; perSite: number },
  ): Promise<ClaimedDelivery[]> {
    const { rows } = await this.driver.run<DeliveryRow>(CLAIM[provider], [
      now,
      leaseUntil,
      limit,
      shares.perEndpoint,
      shares.perSite,
    ]);
    if (rows.length === 0) return [];
    const deliveries = rows.map(toDelivery);
    const endpoints = await this.db.webhookEndpoint.findMany({
      where: { id: { in: [...new Set(deliveries.map((d) => d.endpointId))] } },
      select: { id: true, url: true, secret: true },
    });
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    // An endpoint deleted meanwhile takes its deliveries with it.
    return deliveries.flatMap((d) => {
      const endpoint = byId.get(d.endpointId);
      return endpoint ? [{ ...d, url: endpoint.url, secret: endpoint.secret }] : [];
    });
  }

  /** Stores the body rendered at a delivery's first attempt (every retry sends it unchanged). */
  async setPayload(claim: DeliveryClaim, payload: string): Promise<void> {
    await this.driver.run(`UPDATE "WebhookDelivery" SET "payload" = $3 WHERE ${HELD}`, [
      claim.id,
      claim.attempts,
      payload,
    ]);
  }

  async renewLease(claim: DeliveryClaim, leaseUntil: Date): Promise<void> {
    await this.driver.run(`UPDATE "WebhookDelivery" SET "leaseUntil" = $3 WHERE ${HELD}`, [
      claim.id,
      claim.attempts,
      leaseUntil,
    ]);
  }

  /** Records an attempt's outcome unless the claim was lost meanwhile; false when it was. */
  async record(claim: DeliveryClaim, outcome: DeliveryOutcome): Promise<boolean> {
    const { count } = await this.driver.run(
      `UPDATE "WebhookDelivery" SET "status" = $3, "lastStatus" = $4, "lastError" = $5, "lastLatencyMs" = $6,
        "nextAttemptAt" = COALESCE($7, "nextAttemptAt"), "completedAt" = $8, "leaseUntil" = NULL WHERE ${HELD}`,
      [
        claim.id,
        claim.attempts,
        outcome.status,
        outcome.lastStatus,
        outcome.lastError,
        outcome.lastLatencyMs,
        outcome.nextAttemptAt,
        outcome.completedAt,
      ],
    );
    return count > 0;
  }

  /** Disables an endpoint (its deliveries stay, waiting until it is enabled again). */
  async disable(endpointId: string, reason: string, at: Date): Promise<void> {
    await this.db.webhookEndpoint.updateMany({
      where: { id: endpointId, status: "active" },
      data: { status: "disabled", disabledReason: reason, disabledAt: at },
    });
  }

  /**
   * Enables an endpoint again; its failed deliveries are retried and its skipped events (those
   * recorded while it was disabled) sent, from now (a fresh 24 hours each); its pending ones resume.
   */
  async enable(endpointId: string, now: Date): Promise<void> {
    await this.db.$transaction([
      this.db.webhookEndpoint.update({
        where: { id: endpointId },
        data: { status: "active", disabledReason: null, disabledAt: null },
      }),
      this.db.webhookDelivery.updateMany({
        where: { endpointId, status: { in: ["failed", "skipped"] } },
        data: { status: "pending", nextAttemptAt: now, createdAt: now, completedAt: null },
      }),
    ]);
  }

  /** An endpoint's deliveries, newest first, before the delivery id `before` (null: from the newest). */
  deliveries(endpointId: string, before: number | null, limit: number): Promise<WebhookDelivery[]> {
    return this.db.webhookDelivery.findMany({
      where: { endpointId, ...(before === null ? {} : { id: { lt: before } }) },
      orderBy: { id: "desc" },
      take: limit,
    });
  }

  /** How many events each of `endpointIds` skipped while disabled (those enabling it sends). */
  async skippedCounts(endpointIds: string[]): Promise<Map<string, number>> {
    const groups = await this.db.webhookDelivery.groupBy({
      by: ["endpointId"],
      where: { endpointId: { in: endpointIds }, status: "skipped" },
      _count: { _all: true },
    });
    return new Map(groups.map((g) => [g.endpointId, g._count._all]));
  }

  /**
   * Deletes the deliveries delivered, and the events skipped, before `before` (maintenance);
   * failed ones wait for their endpoint to be enabled.
   */
  async pruneSettled(before: Date): Promise<void> {
    await this.db.webhookDelivery.deleteMany({
      where: { status: { in: ["delivered", "skipped"] }, completedAt: { lt: before } },
    });
  }
}
