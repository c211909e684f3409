// The service's Prometheus metrics (prom-client), one registry per instance. Components report
// through the small hooks they are given (a request finished, a submission retried, an event
// projected, a homeserver request done); figures that live elsewhere (queue depth, repairs,
// streams, the read cache, leadership) are read when the endpoint is scraped. The names are
// listed for dashboards in docs/operations.md#metrics.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { RequestDurations } from "./request-durations.ts";

/** What a scrape reads from the rest of the service; each set by whoever owns the figure. */
export interface MetricSources {
  queue?: () => Promise<{ queued: number; failed: number; oldestQueuedAt: Date | null }>;
  repairsPending?: () => Promise<number>;
  sseStreams?: () => number;
  readCache?: () => { hits: number; misses: number; executions: number };
  isLeader?: () => boolean;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly sources: MetricSources = {};

  readonly httpDuration: RequestDurations;
  readonly submissionsRetried: Counter;
  readonly submissionsFailed: Counter;
  readonly submissionsSent: Counter;
  readonly projectionLag: Histogram;
  readonly projectionGapsFilled: Counter;
  readonly homeserverDuration: Histogram<"method">;
  readonly homeserverErrors: Counter<"method">;
  readonly webhookDeliveries: Counter<"outcome">;
  readonly webhookDuration: Histogram;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: "comments_process_" });
    const httpDuration = new RequestDurations({
      name: "comments_http_request_duration_seconds",
      help: "HTTP request latency (until the response is finished; SSE streams: their whole life), by route id, method and status.",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.httpDuration = httpDuration;
    new Counter({
      name: "comments_http_requests_total",
      help: "HTTP requests answered, by route id, method and status.",
      labelNames: ["route", "method", "status"],
      registers,
      // The duration histogram's counts, read when scraped, rather than each request counted a
      // second time (prom-client hashes and checks the labels of every count).
      async collect() {
        this.reset();
        for (const { metricName, labels, value } of (await httpDuration.get()).values)
          if (metricName === "comments_http_request_duration_seconds_count")
            this.inc(labels as Record<"route" | "method" | "status", string>, value);
      },
    });
    this.submissionsSent = new Counter({
      name: "comments_submissions_sent_total",
      help: "Submissions performed on the homeserver.",
      registers,
    });
    this.submissionsRetried = new Counter({
      name: "comments_submissions_retried_total",
      help: "Submission attempts that failed transiently and were scheduled again.",
      registers,
    });
    this.submissionsFailed = new Counter({
      name: "comments_submissions_failed_total",
      help: "Submissions that failed permanently.",
      registers,
    });
    this.projectionGapsFilled = new Counter({
      name: "comments_projection_gaps_filled_total",
      help: "Events the worker sent that the homeserver's push had not brought back in time, fetched and projected by the gap check.",
      registers,
    });
    this.projectionLag = new Histogram({
      name: "comments_projection_lag_seconds",
      help: "From an event's origin_server_ts to its projection into the read model.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.homeserverDuration = new Histogram({
      name: "comments_homeserver_request_duration_seconds",
      help: "Homeserver (client-server API) request latency, by method.",
      labelNames: ["method"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.homeserverErrors = new Counter({
      name: "comments_homeserver_request_errors_total",
      help: "Homeserver requests that failed (an error answer, a timeout, no connection), by method.",
      labelNames: ["method"],
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: "comments_webhook_deliveries_total",
      help: 'Webhook delivery attempts, by outcome: "delivered" (a 2xx answer), "retried" (failed, scheduled again), "failed" (given up: the endpoint is disabled).',
      labelNames: ["outcome"],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: "comments_webhook_delivery_duration_seconds",
      help: "Webhook delivery attempt latency, from connecting to the receiver's answer (or the failure).",
      buckets: LATENCY_BUCKETS,
      registers,
    });

    const sources = this.sources;
    const queueGauges = {
      depth: new Gauge({ name: "comments_queue_depth", help: "Submissions queued (waiting or in flight).", registers }),
      failed: new Gauge({
        name: "comments_queue_failed",
        help: "Submissions failed permanently (kept for the operator).",
        registers,
      }),
      oldest: new Gauge({
        name: "comments_queue_oldest_age_seconds",
        help: "Age of the oldest queued submission (0 when none).",
        registers,
      }),
    };
    // One read of the queue per scrape, shared by its three gauges.
    let queueRead: Promise<void> | null = null;
    const readQueue = () =>
      (queueRead ??= (async () => {
        try {
          const figures = await sources.queue?.();
          if (!figures) return;
          queueGauges.depth.set(figures.queued);
          queueGauges.failed.set(figures.failed);
          queueGauges.oldest.set(
            figures.oldestQueuedAt ? Math.max(0, (Date.now() - figures.oldestQueuedAt.getTime()) / 1000) : 0,
          );
        } catch {
          // The database is unreachable: the gauges keep their last values (readiness says why).
        }
      })().finally(() => setTimeout(() => (queueRead = null), 0)));
    // Each gauge's collect waits for the shared read.
    for (const gauge of Object.values(queueGauges))
      (gauge as unknown as { collect: () => Promise<void> }).collect = readQueue;
    new Gauge({
      name: "comments_projection_repairs_pending",
      help: "Events that could not be projected, waiting for repair.",
      registers,
      async collect() {
        try {
          const pending = await sources.repairsPending?.();
          if (pending !== undefined) this.set(pending);
        } catch {
          // as above
        }
      },
    });
    new Gauge({
      name: "comments_sse_streams",
      help: "SSE streams open on this instance.",
      registers,
      collect() {
        this.set(sources.sseStreams?.() ?? 0);
      },
    });
    const cacheReads = new Counter({
      name: "comments_read_cache_requests_total",
      help: "Cacheable public reads, by result (hit, miss); hit ratio = hit / (hit + miss).",
      labelNames: ["result"],
      registers,
    });
    const readExecutions = new Counter({
      name: "comments_read_executions_total",
      help: "Cache misses that ran their read; the other misses joined an identical read in flight (single flight).",
      registers,
    });
    const cacheRead = { hits: 0, misses: 0, executions: 0 };
    (cacheReads as unknown as { collect: () => void }).collect = () => {
      const now = sources.readCache?.() ?? { hits: 0, misses: 0, executions: 0 };
      cacheReads.inc({ result: "hit" }, now.hits - cacheRead.hits);
      cacheReads.inc({ result: "miss" }, now.misses - cacheRead.misses);
      readExecutions.inc(now.executions - cacheRead.executions);
      Object.assign(cacheRead, now);
    };
    new Gauge({
      name: "comments_read_cache_hit_ratio",
      help: "Read-cache hits / cacheable reads since the instance started (0 before any).",
      registers,
      collect() {
        const { hits, misses } = sources.readCache?.() ?? { hits: 0, misses: 0 };
        this.set(hits + misses === 0 ? 0 : hits / (hits + misses));
      },
    });
    new Gauge({
      name: "comments_leader",
      help: "1 while this instance is the cluster's leader (runs the background passes).",
      registers,
      collect() {
        this.set(sources.isLeader?.() ? 1 : 0);
      },
    });
  }

  /** Times a homeserver request. */
  async homeserverRequest<T>(method: string, request: () => Promise<T>): Promise<T> {
    const end = this.homeserverDuration.startTimer({ method });
    try {
      return await request();
    } catch (err) {
      this.homeserverErrors.inc({ method });
      throw err;
    } finally {
      end();
    }
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
