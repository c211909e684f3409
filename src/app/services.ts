// The composition root: builds every service from the configuration.
import type { Config } from "../config/config.ts";
import { driverStatements, openDatabase, type Db } from "../db/client.ts";
import { providerOf } from "../db/database-url.ts";
import { migrate } from "../db/migrations.ts";
import { Challenges } from "../writes/challenge-store.ts";
import { Comments } from "../features/comments/comments.ts";
import { Health } from "../features/meta/health.ts";
import { IdempotencyStore } from "../writes/idempotency-store.ts";
import { sharedSecret } from "../db/settings-store.ts";
import { Sites } from "../features/sites/sites.ts";
import { Verifications } from "../features/verification/verifications.ts";
import { OriginVerifier } from "../features/verification/verifier.ts";
import { HostResolver } from "../security/resolver.ts";
import { SiteWriteAuth } from "../features/sites/site-write-auth.ts";
import { SeenSignatures } from "../features/sites/seen-signature-store.ts";
import { Homeserver } from "../matrix/homeserver.ts";
import { MatrixNames } from "../matrix/names.ts";
import { Provisioner } from "../features/rooms/provisioning.ts";
import { Quarantines } from "../features/rooms/quarantine.ts";
import { ImportJobs } from "../features/imports/jobs.ts";
import { RoomStore } from "../features/rooms/room-store.ts";
import { RoomUpgrades } from "../features/rooms/upgrades.ts";
import { Repairs } from "../features/repairs/repairs.ts";
import { RepairPass } from "../projection/repair-pass.ts";
import { Projector } from "../projection/projector.ts";
import { submissionPerformer } from "../queue/perform.ts";
import { WritePipeline } from "../writes/pipeline.ts";
import { visitorWrites } from "./route-table.ts";
import { QueueWorker } from "../queue/worker.ts";
import { SubmissionStore } from "../queue/submission-store.ts";
import { ProjectionGapCheck } from "../queue/projection-gaps.ts";
import { LiveEvents } from "../sse/live-events.ts";
import { PageEvents } from "../sse/page-stream.ts";
import { LiveEventPoller } from "../sse/live-event-poller.ts";
import { prepareLiveEventTurns } from "../sse/live-event-store.ts";
import { Retirements } from "../features/retirement/requests.ts";
import { RetirementPass } from "../features/retirement/pass.ts";
import { StickerPacks } from "../features/stickers/packs.ts";
import { VisitorProfiles } from "../features/visitors/profiles.ts";
import { MediaUrls } from "../features/media/proxy-urls.ts";
import { MediaProxy } from "../features/media/proxy.ts";
import { Governance } from "../features/governance/governance.ts";
import { RolePowerLevels } from "../features/governance/power-levels.ts";
import { ConvergencePass } from "../features/governance/convergence-pass.ts";
import { Bot } from "../features/governance/bot/bot.ts";
import { BotInbox } from "../features/governance/bot/inbox.ts";
import { BotIntake } from "../features/governance/bot/intake.ts";
import { LocalSignals, type ClusterSignals } from "../cluster/signals.ts";
import { PostgresSignals } from "../cluster/postgres-signals.ts";
import { Leadership } from "../cluster/leader.ts";
import { knownSiteIds } from "../cluster/known-sites-store.ts";
import { openSharedRateLimits, type SharedRateLimitStore } from "../cluster/shared-rate-limits.ts";
import type { Logger } from "./logger.ts";
import { ServiceMetrics } from "../metrics/metrics.ts";
import { pendingRepairs } from "../projection/repair-store.ts";
import { Feeds } from "../features/feeds/feeds.ts";
import { Webhooks } from "../features/webhooks/webhooks.ts";
import { WebhookDeliverer } from "../features/webhooks/deliverer.ts";
import { commentRenderer } from "./comment-rendering.ts";
import { DashboardSessions } from "../features/dashboard/sessions.ts";
import { Dashboard } from "../features/dashboard/dashboard.ts";
import { SiteActivity } from "../features/dashboard/site-activity.ts";
import { Moderation } from "../features/moderation/moderation.ts";
import { BanExpiryPass } from "../features/moderation/ban-expiry-pass.ts";
import { allowedHomeservers, OpenIdVerifier } from "../features/dashboard/openid.ts";
import { refusedAddress } from "../security/address-policy.ts";

export interface Services {
  config: Config;
  db: Db;
  names: MatrixNames;
  homeserver: Homeserver;
  sites: Sites;
  verifications: Verifications;
  siteWriteAuth: SiteWriteAuth;
  challenges: Challenges;
  idempotency: IdempotencyStore;
  comments: Comments;
  writes: WritePipeline;
  /** Queued visitor writes, as the dashboards' GraphQL reads them. */
  submissions: SubmissionStore;
  health: Health;
  projector: Projector;
  pageEvents: PageEvents;
  liveEventPoller: LiveEventPoller;
  worker: QueueWorker;
  /** Fetches and projects the events the worker sent that the homeserver's push has not brought back. */
  projectionGaps: ProjectionGapCheck;
  retirements: Retirements;
  retirementPass: RetirementPass;
  /** Page rooms the service cannot manage, their scheduled adoption retries and reinstatement. */
  quarantines: Quarantines;
  /** Room upgrades and their intents (the pass resumes unfinished ones). */
  upgrades: RoomUpgrades;
  /** Automatic retries of projection repairs, and the operator's view of them. */
  repairPass: RepairPass;
  repairs: Repairs;
  /** Imports the operator started over HTTP (src/features/imports/jobs.ts). */
  imports: ImportJobs;
  stickers: StickerPacks;
  profiles: VisitorProfiles;
  /** Signed media proxy URLs (src/features/media/): every mxc:// URL a read or response hands out goes through it. */
  mediaUrls: MediaUrls;
  mediaProxy: MediaProxy;
  /** Role claims, roles and ownership transfers; what the AS bot's DM handling asks (GovernanceForBot). */
  governance: Governance;
  /** Dashboard sign-in (Matrix OpenID) and sessions (src/features/dashboard/). */
  dashboardSessions: DashboardSessions;
  /** The dashboard's reads of a site, and its live activity. */
  dashboard: Dashboard;
  siteActivity: SiteActivity;
  /** Moderation: deletes, bans, pins, closed pages and comments held for review (src/features/moderation/). */
  moderation: Moderation;
  /** The leader's pass lifting timed bans. */
  banExpiryPass: BanExpiryPass;
  convergencePass: ConvergencePass;
  /** The AS bot's inbox of DM events and invites (src/features/governance/bot/): started with the worker. */
  botInbox: BotInbox;
  /** Atom feeds of sites and pages. */
  feeds: Feeds;
  /** Webhook endpoints and the events recorded for them (src/features/webhooks/). */
  webhooks: Webhooks;
  /** Delivers the recorded webhook events (started with the worker). */
  webhookDeliverer: WebhookDeliverer;
  /** Page changes and new live events, heard by every instance on the database. */
  signals: ClusterSignals;
  /** Runs the background passes on one instance of the cluster. */
  leader: Leadership;
  /** Rate-limit budgets shared by the instances (PostgreSQL, or Redis when configured); null on SQLite without Redis (or with rate limits off). */
  sharedRateLimits: SharedRateLimitStore | null;
  /** This instance's Prometheus metrics (docs/operations.md#metrics). */
  metrics: ServiceMetrics;
  /** The structured logger (src/app/logger.ts builds it): request lines and everything `log` says. */
  logger: Logger;
  log: (message: string) => void;
}

export async function createServices(
  config: Config,
  logger: Logger,
  log: (message: string) => void = (message) => logger.warn(message),
): Promise<Services> {
  await migrate(config.database.url);
  const db = await openDatabase(config.database.url, config.database);
  await driverStatements(db).open();
  const names = new MatrixNames(config.matrix.namespacePrefix, config.matrix.serverName);
  const metrics = new ServiceMetrics();
  const homeserver = new Homeserver(
    config.matrix.homeserverUrl,
    config.matrix.asToken,
    names,
    config.matrix.requestTimeoutMs,
    (method, request) => metrics.homeserverRequest(method, request),
  );
  const sites = new Sites(db, config.sites);
  await sites.syncDeclarations();
  const resolver = new HostResolver(config.security.dnsResolver);
  const verifier = new OriginVerifier(resolver, config.security.allowPrivateVerificationOrigins);
  const openId = new OpenIdVerifier(
    allowedHomeservers(config.dashboard.openidHomeservers, {
      serverName: config.matrix.serverName,
      baseUrl: config.matrix.homeserverUrl,
    }),
    { resolver, refuse: config.security.allowPrivateVerificationOrigins ? () => null : refusedAddress },
  );
  const challenges = new Challenges(db, await sharedSecret(db, "challenge_secret"), config.security.powDifficulty);
  const idempotency = new IdempotencyStore(db);
  const mediaUrls = new MediaUrls(await sharedSecret(db, "media_url_secret"), {
    enabled: config.media.proxyEnabled,
    serverName: config.matrix.serverName,
    publicBaseUrl: config.server.publicBaseUrl,
  });
  const signals = await clusterSignals(config, db, log);
  const live = new LiveEvents();
  await prepareLiveEventTurns(db);
  const liveEventPoller = new LiveEventPoller(db, live, log, config.live.fallbackPollMs);
  signals.onLiveEventsStored(() => liveEventPoller.kick());
  // The bot itself is built below, once governance is.
  const botInbox = new BotInbox(db, (event) => bot.handle(event), { ...config.queue, log });
  const botIntake = new BotIntake(db, names.botUserId, botInbox);
  const projector = new Projector(
    db,
    names,
    async (changes) => {
      // Caches drop the changed pages before the live events that announce them are delivered.
      for (const change of changes) signals.pageChanged(change);
      signals.liveEventsStored();
    },
    true,
    (event) => botIntake.take(event),
  );
  const webhooks = new Webhooks(db, sites, { allowPrivateDestinations: config.webhooks.allowPrivateDestinations }, () =>
    webhookDeliverer.kick(),
  );
  await webhooks.syncDeclarations();
  projector.onCommentChanged = webhooks.record;
  const webhookDeliverer = new WebhookDeliverer(
    db,
    commentRenderer(() => built),
    {
      provider: providerOf(config.database.url),
      resolver: new HostResolver(config.security.dnsResolver),
      allowPrivate: config.webhooks.allowPrivateDestinations,
      timeoutMs: config.webhooks.timeoutMs,
      retryBaseMs: config.webhooks.retryBaseMs,
      giveUpAfterMs: config.webhooks.giveUpAfterMs,
      leaseMs: config.webhooks.leaseMs,
      pollIntervalMs: config.webhooks.pollIntervalMs,
      log,
      onAttempt: (outcome, latencyMs) => {
        metrics.webhookDeliveries.inc({ outcome });
        metrics.webhookDuration.observe(latencyMs / 1000);
      },
    },
  );
  // Events are recorded with the live events that announce the same changes (here or, on
  // PostgreSQL, on another instance).
  signals.onLiveEventsStored(() => webhookDeliverer.kick());
  const rolePowerLevels = new RolePowerLevels(db, homeserver, log);
  const pageChanged = (siteId: string, pageSlug: string) => signals.pageChanged({ siteId, pageSlug });
  const quarantines = new Quarantines(db, homeserver, log, pageChanged);
  const provisioner = new Provisioner(
    db,
    homeserver,
    config.matrix.roomVersion,
    (roomId) => projector.replayWaiting(roomId),
    rolePowerLevels,
    quarantines,
  );
  const upgrades = new RoomUpgrades(
    db,
    homeserver,
    {
      recorded: (roomId) => projector.replayWaiting(roomId),
      converge: async (siteId) => {
        await rolePowerLevels.reconcile(siteId);
        await rolePowerLevels.flush(siteId);
      },
      changed: pageChanged,
    },
    log,
  );
  const repairPass = new RepairPass(db, (eventId) => projector.retryStored(eventId), log);
  projector.onRoomReplaced = (roomId, successor) =>
    void upgrades
      .observeTombstone(roomId, successor)
      .catch((err) => log(`rooms: tombstone of ${roomId} not recorded: ${(err as Error).message}`));
  const submissions = new SubmissionStore(db);
  const perform = submissionPerformer(submissions, homeserver, provisioner);
  const worker = new QueueWorker(db, Object.fromEntries(visitorWrites.map((op) => [op.kind, perform])), {
    ...config.queue,
    provider: providerOf(config.database.url),
    log,
    onOutcome: (outcome) =>
      (outcome === "sent"
        ? metrics.submissionsSent
        : outcome === "retried"
          ? metrics.submissionsRetried
          : metrics.submissionsFailed
      ).inc(),
    onFailed: (submission, message) => moderation.submissionFailed(submission, message),
  });
  projector.onProjected = (originServerTs) =>
    metrics.projectionLag.observe(Math.max(0, (Date.now() - originServerTs) / 1000));
  const comments = new Comments(db, names);
  const stickers = new StickerPacks(db, sites, homeserver, provisioner, (event) => projector.applyTransaction([event]));
  const moderation = new Moderation(db, homeserver, names, sites, {
    queued: () => worker.wake(),
    activityStored: () => signals.liveEventsStored(),
    held: (tx, submission) =>
      webhooks.commentHeld(tx, {
        siteId: submission.siteId,
        pageSlug: submission.pageSlug,
        eventId: submission.id,
        revision: "",
      }),
    changed: pageChanged,
    applySent: (event) => projector.applyTransaction([event]),
    log,
  });
  const writes = new WritePipeline(
    db,
    sites,
    challenges,
    idempotency,
    () => worker.wake(),
    { db, homeserver, provisioner, stickers },
    moderation,
  );
  const retirementPass = new RetirementPass(db, homeserver, log, (change) => signals.pageChanged(change));
  const governance = new Governance(db, sites, homeserver, rolePowerLevels, log);
  const bot = new Bot(db, homeserver, governance, {
    botUserId: names.botUserId,
    messagesPerMinute: config.rateLimit.enabled ? config.rateLimit.botMessage : null,
    log,
  });
  const health = new Health(db, homeserver, () => worker.isRunning);
  const leader = new Leadership(config.database.url, config.cluster.leaderRetryMs, log);
  metrics.sources.queue = () => health.queueFigures();
  metrics.sources.repairsPending = () => pendingRepairs(db);
  metrics.sources.isLeader = () => leader.isLeader;
  const built: Services = {
    config,
    db,
    names,
    homeserver,
    sites,
    verifications: new Verifications(db, sites, verifier),
    siteWriteAuth: new SiteWriteAuth(sites, new SeenSignatures(db), config.security.verificationPolicy),
    challenges,
    idempotency,
    comments,
    writes,
    submissions,
    health,
    projector,
    pageEvents: new PageEvents(db, live, (siteId, pageSlug) => projector.ephemeral.typingSnapshot(siteId, pageSlug)),
    liveEventPoller,
    worker,
    projectionGaps: new ProjectionGapCheck(db, homeserver, projector, log, (count) =>
      metrics.projectionGapsFilled.inc(count),
    ),
    retirements: new Retirements(
      db,
      (siteId) => sites.isDeclared(siteId),
      (change) => {
        signals.pageChanged(change);
        retirementPass.kick();
      },
    ),
    retirementPass,
    quarantines,
    upgrades,
    repairPass,
    repairs: new Repairs(db, () => repairPass.kick()),
    imports: new ImportJobs(
      db,
      homeserver,
      {
        ensurePageRoom: (siteId, pageSlug) => provisioner.ensurePageRoom(siteId, pageSlug),
        activeRoomId: (siteId, pageSlug) => new RoomStore(db).activeRoomId(siteId, pageSlug),
      },
      config.imports.concurrency,
      log,
    ),
    mediaUrls,
    mediaProxy: new MediaProxy(mediaUrls, {
      homeserverUrl: config.matrix.homeserverUrl,
      asToken: config.matrix.asToken,
      maxBytes: config.media.proxyMaxBytes,
      timeoutMs: config.media.proxyTimeoutMs,
    }),
    stickers,
    profiles: new VisitorProfiles(db, sites, names),
    governance,
    feeds: new Feeds(db, sites),
    webhooks,
    webhookDeliverer,
    moderation,
    banExpiryPass: new BanExpiryPass(moderation),
    dashboard: new Dashboard(db),
    siteActivity: new SiteActivity(db, live),
    dashboardSessions: new DashboardSessions(db, {
      ttlSeconds: config.dashboard.sessionTtlSeconds,
      operatorToken: config.security.operatorToken,
      verifyOpenId: (serverName, accessToken) => openId.userOf(serverName, accessToken),
    }),
    convergencePass: new ConvergencePass(rolePowerLevels, log),
    botInbox,
    signals,
    leader,
    metrics,
    logger,
    sharedRateLimits: config.rateLimit.enabled
      ? await openSharedRateLimits({
          redisUrl: config.rateLimit.redisUrl,
          databaseUrl: config.database.url,
          postgres: providerOf(config.database.url) === "postgres",
        })
      : null,
    log,
  };
  return built;
}

/** One instance per SQLite database; with PostgreSQL, every instance on it hears the signals. */
async function clusterSignals(config: Config, db: Db, log: (message: string) => void): Promise<ClusterSignals> {
  if (providerOf(config.database.url) !== "postgres") return new LocalSignals();
  const signals = new PostgresSignals(config.database.url, log, () => knownSiteIds(db), config.cluster.leaderRetryMs);
  await signals.start();
  return signals;
}
