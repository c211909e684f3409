// Every limit the service enforces, in one table: the HTTP rate-limit budgets (sized by
// [rate_limit]), the per-instance SSE cap's answer, the fixed Retry-After values, the input caps,
// the request body caps and JSON depths, the AS bot's message budget and the background passes' intervals.
// Per-route caps (upload sizes) are in the routes.
import type { ConfigValues } from "./keys.ts";
import { FixedWindowLimiter, TokenBucketLimiter } from "../security/rate-limit.ts";

export interface SharedBudget {
  /** The group's name: the prefix of its keys in the shared table. */
  name: string;
  points: number;
  windowSeconds: number;
  /** The per-instance limiter used when the database does not answer. */
  fallback: Limiter;
}

/** Where the shared counters live: PostgreSQL (the database) or Redis (rate_limit.redis_url). */
export interface SharedRateLimitStore {
  readonly kind: "postgres" | "redis";
  limiter(budget: SharedBudget): Limiter;
  close(): Promise<void>;
}

const HOUR = 3600;
const MINUTE = 60;

/** A client budget: `take` counts one request, false when the client is over it. */
export interface Limiter {
  take(key: string, now: number): boolean | Promise<boolean>;
  /** The budget's window: Retry-After is this constant, not the time left (as the API documents). */
  readonly retryAfterSeconds: number;
}

type RateLimitConfig = ConfigValues["rateLimit"];
const hourly = (limit: number): Limiter => new FixedWindowLimiter({ limit, windowSeconds: HOUR });
const perMinute = (limit: number): Limiter => new FixedWindowLimiter({ limit, windowSeconds: MINUTE });

/** The HTTP rate-limit groups routes name, each built from its [rate_limit] keys; spent per client IP. */
const RATE_LIMIT_GROUPS = {
  siteRegistration: (c: RateLimitConfig) => hourly(c.siteRegistration),
  verificationStart: (c: RateLimitConfig) => hourly(c.verificationStart),
  verificationConfirm: (c: RateLimitConfig) => hourly(c.verificationConfirm),
  commentWrite: (c: RateLimitConfig) => hourly(c.commentWrite),
  profileRead: (c: RateLimitConfig) => hourly(c.profileRead),
  claimToken: (c: RateLimitConfig) => perMinute(c.claimToken),
  governanceWrite: (c: RateLimitConfig) => hourly(c.governanceWrite),
  publicRead: (c: RateLimitConfig) => hourly(c.publicRead),
  mediaProxy: (c: RateLimitConfig) => hourly(c.mediaProxy),
  mediaUpload: (c: RateLimitConfig) => hourly(c.mediaUpload),
  operator: (c: RateLimitConfig) => perMinute(c.operator),
  sse: (c: RateLimitConfig): Limiter => new TokenBucketLimiter(c.ssePerHour, c.sseBurst),
  challenge: (c: RateLimitConfig) => hourly(c.challenge),
};

/** One per group of the API's rate-limit table. */
export type RateLimitName = keyof typeof RATE_LIMIT_GROUPS;

/** A group's budget as a fixed window (the shared store counts fixed windows; SSE's bucket becomes burst per refill time). */
function sharedWindow(name: RateLimitName, c: RateLimitConfig): { points: number; windowSeconds: number } {
  if (name === "sse") return { points: c.sseBurst, windowSeconds: Math.ceil((c.sseBurst * HOUR) / c.ssePerHour) };
  const perMinuteGroups: RateLimitName[] = ["claimToken", "operator"];
  const key = name as Exclude<RateLimitName, "sse">;
  return { points: c[key], windowSeconds: perMinuteGroups.includes(name) ? MINUTE : HOUR };
}

/**
 * Every group's limiter; null when rate limits are off. With a shared store (PostgreSQL) the
 * budgets hold across every instance on the database; without one (SQLite) each instance counts alone.
 */
export function buildLimiters(
  config: RateLimitConfig,
  shared?: SharedRateLimitStore | null,
): Record<RateLimitName, Limiter> | null {
  if (!config.enabled) return null;
  return Object.fromEntries(
    Object.entries(RATE_LIMIT_GROUPS).map(([name, build]) => {
      const local = build(config);
      if (!shared) return [name, local];
      return [name, shared.limiter({ name, ...sharedWindow(name as RateLimitName, config), fallback: local })];
    }),
  ) as Record<RateLimitName, Limiter>;
}

/** Retry-After of 429 when an instance has rate_limit.sse_max_streams streams open. */
export const SSE_STREAMS_RETRY_AFTER_SECONDS = HOUR;

/** The Retry-After (seconds) of 503 homeserver-unavailable: a constant, not a prediction. */
export const HOMESERVER_RETRY_AFTER_SECONDS = 30;

/** Uploads in progress at once, per client and per instance (src/rest/upload-slots.ts): each may hold its size cap in memory. */
export const UPLOAD_SLOTS = { perClient: 2, perInstance: 8, retryAfterSeconds: 10 } as const;

// Input caps: the most one field of a request may hold (the API documents each where it names the field).

/** A comment's text, in grapheme clusters. */
export const MAX_COMMENT_GRAPHEMES = 10_000;
/** A visitor's display name, in grapheme clusters (and MAX_DISPLAY_NAME_CODE_POINTS, the homeserver's). */
export const MAX_DISPLAY_NAME_GRAPHEMES = 50;
export const MAX_REACTION_KEY_GRAPHEMES = 32;
export const MAX_POLL_QUESTION_GRAPHEMES = 500;
export const MAX_POLL_OPTION_GRAPHEMES = 200;
export const POLL_OPTIONS = { min: 2, max: 20 } as const;
export const MAX_LOCATION_DESCRIPTION_GRAPHEMES = 1_000;
export const MAX_GEO_URI_LENGTH = 256;
/** A moderator's reason, in code points (it goes into Matrix events). */
export const MAX_MODERATION_REASON = 500;
/** Comment ids one bulk delete takes. */
export const MAX_BULK_DELETE = 100;
/** The longest timed ban: 10 years; longer is for ever. */
export const MAX_BAN_SECONDS = 10 * 365 * 24 * 3600;
/** A dashboard connection's cursor: longer than any handed out, refused before decoding. */
export const MAX_CURSOR_LENGTH = 600;

/** Accepted bodies of cacheable reads kept to skip decoding the same bytes again (src/rest/read-bodies.ts). */
export const MAX_REMEMBERED_READ_BODIES = 1_000;
/** Larger read bodies are decoded every time: the memory stays within about 8 MB. */
export const MAX_REMEMBERED_READ_BODY_BYTES = 8 * 1024;

/** Route matches kept by method and path (src/rest/router.ts): a page's readers repeat its path. */
export const MAX_REMEMBERED_ROUTE_MATCHES = 1_000;
/** Longer paths are matched every time: the memory stays within about 1 MB. */
export const MAX_REMEMBERED_ROUTE_PATH_LENGTH = 512;

/** JSON request bodies above this are refused; a raw-body route (uploads) declares its own cap. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A JSON request body nests at most this deep (src/rest/json-body.ts): deeper than any has reason to be. */
export const MAX_REQUEST_JSON_DEPTH = 32;

/**
 * Nesting the service sends to the homeserver at most (src/matrix/canonical-json.ts).
 * Homeservers parse and re-serialize events recursively, and so does this service
 * (JSON.stringify overflows the stack a few thousand levels deep).
 */
export const MAX_EVENT_JSON_DEPTH = 32;

/** What the homeserver may push in one transaction: up to 100 events of up to 64 KiB, plus ephemeral data. */
export const APPSERVICE_MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The AS bot's budgets per Matrix user (messagesPerMinute null: rate limits off): its messages
 * and invites per minute; over that, one notice per minute, then silence.
 */
export function botMessageLimiters(
  messagesPerMinute: number | null,
): { messages: FixedWindowLimiter; notices: FixedWindowLimiter } | null {
  return messagesPerMinute === null
    ? null
    : {
        messages: new FixedWindowLimiter({ limit: messagesPerMinute, windowSeconds: MINUTE }),
        notices: new FixedWindowLimiter({ limit: 1, windowSeconds: MINUTE }),
      };
}

/** Waits before the automatic adoption retries of a quarantined room, after its 1st, 2nd and 3rd failure; after the 4th only the operator reinstates it. */
export const QUARANTINE_RETRY_SCHEDULE_MS = [HOUR * 1000, 6 * HOUR * 1000, 24 * HOUR * 1000] as const;

/** Automatic retries of a projection repair: the wait after each failed attempt; past the last the repair is manual. */
export const REPAIR_RETRY_SCHEDULE_MS = [60_000, 10 * 60_000, HOUR * 1000] as const;

/**
 * The projection gap check (src/queue/projection-gaps.ts): an event the worker sent that the
 * homeserver's push has not brought back `graceMs` after it was sent is fetched and projected.
 * It runs every `intervalMs` and after every start, looking back `lookbackMs` (the push retries
 * on its own; this closes what it missed), `batch` submissions per query.
 */
export const PROJECTION_GAP_CHECK = {
  graceMs: 10_000,
  intervalMs: 5_000,
  lookbackMs: 24 * HOUR * 1000,
  batch: 200,
} as const;

/**
 * Pages whose events of one appservice transaction are applied side by side (src/projection/apply-lanes.ts);
 * each page's in arrival order. Each applying transaction holds a connection of the database pool.
 */
export const PROJECTION_PAGE_LANES = 4;

/** Pages one page-counts read may ask for (QUERY …/page-counts). */
export const MAX_COUNTED_PAGES = 200;

/** Entries of an Atom feed (a site's, a page's): the newest standing comments. */
export const FEED_ENTRIES = 50;

/**
 * Webhook deliveries (src/features/webhooks/): each attempt connects within `connectMs` (the
 * whole attempt within webhooks.timeout_ms); at most `maxResponseBytes` of the receiver's answer
 * are read (the rest is ignored) and `maxErrorChars` of it kept in the delivery log; retries
 * back off exponentially with jitter from webhooks.retry_base_ms up to `maxRetryDelayMs`;
 * `concurrency` attempts at once per instance, of which an endpoint has at most
 * `perEndpointConcurrency` and a site at most `perSiteConcurrency` (both over all instances), so
 * one site's receivers that never answer leave most slots to the others; a site has at most
 * `maxEndpointsPerSite`.
 * Bodies are small by construction: one comment (at most ~64 KiB, the homeserver's event cap).
 */
export const WEBHOOK_LIMITS = {
  connectMs: 3_000,
  maxResponseBytes: 4 * 1024,
  maxErrorChars: 300,
  maxRetryDelayMs: HOUR * 1000,
  concurrency: 16,
  perEndpointConcurrency: 2,
  perSiteConcurrency: 4,
  maxEndpointsPerSite: 10,
} as const;
/** How often each background pass runs (each also runs after every start; src/app/background-passes.ts). */
export const PASS_INTERVALS_MS = {
  /** Projection repairs due for an automatic retry (src/projection/repair-pass.ts). */
  repairs: 60_000,
  /** Expired challenges, idempotency records and other retention (src/app/maintenance-pass.ts). */
  maintenance: 10 * 60_000,
  /** Role power levels converging on the roster (src/features/governance/convergence-pass.ts). */
  convergence: 30_000,
  /** The AS bot's durable inbox (src/features/governance/bot/inbox.ts). */
  botInbox: 2_000,
  /** Room upgrades under way (src/features/rooms/upgrades.ts). */
  roomUpgrades: 60_000,
  /** Quarantined rooms due for an adoption retry (src/features/rooms/quarantine.ts). */
  quarantine: 60_000,
  /** Site and page retirements (src/features/retirement/pass.ts); also their retry backoff's base. */
  retirement: 5_000,
} as const;

/**
 * Imports (src/features/imports/): the most text one XML element (or one JSON string) may hold,
 * and the most one record (a Disqus post, a WordPress item, a JSON line) may hold in all. A
 * larger one is a malformed file (an error naming its line), so a hostile or broken file never
 * needs more memory than this.
 */
export const IMPORT_LIMITS = { maxTextBytes: 1024 * 1024, maxRecordBytes: 8 * 1024 * 1024 } as const;
/** A hold-for-review word list (src/features/moderation/): it is matched against every new comment. */
export const HOLD_WORDS_LIMITS = { maxWords: 200, maxWordLength: 64 } as const;
