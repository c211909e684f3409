// Every configuration key the service understands: its type, default and meaning.
// The loader validates a TOML file against this table, so an unknown or mistyped key stops
// start-up with a message naming it; the Config type is derived from it (ConfigValues);
// docs/configuration.md mirrors it.

export type KeyType = "string" | "integer" | "boolean" | "string[]";

export interface KeySpec {
  type: KeyType;
  default?: string | number | boolean | string[];
  /** True when the key has no default and must be given. */
  required?: boolean;
  min?: number;
  max?: number;
  /** For strings: the only values allowed. */
  values?: readonly string[];
  /** For strings: empty means none (the value reads as null). */
  blankIsNull?: boolean;
  /** For strings (non-empty): the form they must have, and how to say it. */
  pattern?: { regex: RegExp; description: string };
  doc: string;
}

export const CONFIG_KEYS = {
  "server.listen_host": { type: "string", default: "127.0.0.1", doc: "Address the HTTP server binds to." },
  "server.listen_port": {
    type: "integer",
    default: 8080,
    min: 0,
    max: 65535,
    doc: "Port the HTTP server listens on (0 picks a free port).",
  },
  "server.public_base_url": {
    type: "string",
    default: "",
    blankIsNull: true,
    doc: "Public base URL of the service (e.g. https://comments.example). Absolute URLs the API hands out are built on it; empty means the request's Host.",
  },
  "server.shutdown_timeout_ms": {
    type: "integer",
    default: 10_000,
    min: 0,
    doc: "On SIGTERM, how long requests in flight may take to finish before their connections are closed (SSE streams end at once, with a retry hint).",
  },
  "log.level": {
    type: "string",
    default: "info",
    values: ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
    doc: "Least severity logged (JSON lines on stdout, one per request at info); SIGHUP re-reads it from the configuration file of a running instance.",
  },
  "metrics.listen_host": {
    type: "string",
    default: "127.0.0.1",
    doc: "Address the Prometheus metrics listener binds to.",
  },
  "metrics.listen_port": {
    type: "integer",
    default: 0,
    min: 0,
    max: 65535,
    doc: "Port of a separate listener serving GET /metrics without credentials (0: none; GET /metrics on the main port with the operator token always works).",
  },
  "server.trusted_proxies": {
    type: "string[]",
    default: [],
    doc: "Peers whose X-Forwarded-For is honored: CIDRs or presets loopback, private, linklocal.",
  },

  "database.url": {
    type: "string",
    default: "file:./.data/comments.db",
    doc: "file:<path> for SQLite (relative to the working directory) or postgres://… for PostgreSQL.",
  },
  "database.sqlite_cache_mb": {
    type: "integer",
    default: 32,
    min: 1,
    doc: "SQLite only: each connection's page cache in MiB (the service holds two, and one on each read thread). Reads of pages beyond it come from the memory map.",
  },
  "database.sqlite_mmap_mb": {
    type: "integer",
    default: 2000,
    min: 0,
    doc: "SQLite only: how much of the database file (MiB) is read through a memory map instead of read() calls, so a read model of millions of comments is served from the OS page cache without copies; 0 turns it off. The bundled SQLite caps it at 2 GiB. Address space, not memory: the OS pages it in and out.",
  },
  "database.sqlite_read_threads": {
    type: "integer",
    default: 2,
    min: 0,
    max: 16,
    doc: "SQLite only: how many threads run the driver's reads (comment lists, counts, the projection's lookups), each with a connection and page cache of its own, so a read waiting on the disk does not hold the service's event loop and several reach the disk at once; 0 runs them on the event loop's thread.",
  },

  "matrix.homeserver_url": {
    type: "string",
    default: "http://127.0.0.1:8008",
    doc: "Client-server API base URL of the homeserver this service is the appservice of.",
  },
  "matrix.server_name": {
    type: "string",
    default: "localhost",
    doc: "The homeserver's server name (the part after ':' in user ids).",
  },
  "matrix.as_token": {
    type: "string",
    required: true,
    doc: "Appservice token: the service's credential towards the homeserver.",
  },
  "matrix.hs_token": {
    type: "string",
    required: true,
    doc: "Homeserver token: what the homeserver presents when it pushes transactions.",
  },
  "matrix.appservice_id": { type: "string", default: "comment-service", doc: "Id of the appservice registration." },
  "matrix.appservice_url": {
    type: "string",
    default: "",
    blankIsNull: true,
    doc: "URL at which the homeserver reaches this service; empty means http://<listen_host>:<listen_port>.",
  },
  "matrix.namespace_prefix": {
    type: "string",
    default: "_service_",
    doc: "Prefix of every user and alias localpart the service owns (bot, virtual users, aliases).",
  },
  "matrix.registration_file": {
    type: "string",
    default: "./.data/appservice-registration.yaml",
    doc: "Where the service writes the appservice registration to give the homeserver.",
  },
  "matrix.room_version": { type: "string", default: "12", doc: "Room version for new Spaces and page rooms." },
  "matrix.request_timeout_ms": {
    type: "integer",
    default: 30000,
    min: 100,
    max: 600000,
    doc: "Deadline of every homeserver request; a queued write whose request times out is retried like any other failure.",
  },

  "security.operator_token": {
    type: "string",
    default: "",
    blankIsNull: true,
    // Presented as `Authorization: Bearer <token>`, which admits only these characters (src/security/bearer.ts).
    pattern: { regex: /^[A-Za-z0-9\-._~+/]+=*$/, description: "letters, digits and - . _ ~ + / (then = padding)" },
    doc: "Bearer token of the operator API and of every /graphql field; empty disables the operator API (/graphql then takes dashboard sessions only). Letters, digits and `-._~+/` (RFC 6750's token characters).",
  },
  "security.allow_private_verification_origins": {
    type: "boolean",
    default: false,
    doc: "Allow origin verification to reach non-public addresses (IANA's special-purpose ranges: loopback, private, link-local, unique-local, CGNAT, documentation, multicast …): as IP-literal origins or as what a host name resolves to.",
  },
  "security.dns_resolver": {
    type: "string",
    default: "",
    blankIsNull: true,
    doc: 'DNS server ("ip:port", "[ipv6]:port" or "ip") origin verification asks for TXT records and host addresses; empty means the system resolver.',
  },
  "security.verification_policy": {
    type: "string",
    default: "optional",
    values: ["optional", "strict"],
    doc: "Which API-registered sites need a verified origin before they accept writes: optional = all but those with a server-generated id (a generated id without verified origins accepts writes from any Origin), strict = all.",
  },
  "security.pow_difficulty": {
    type: "integer",
    default: 16,
    min: 0,
    max: 32,
    doc: "Leading zero bits the proof-of-work answer's SHA-256 must have.",
  },

  "dashboard.openid_homeservers": {
    type: "string[]",
    default: [],
    doc: 'Homeservers whose users may sign in to dashboards (Matrix OpenID): "server_name" or "server_name=https://base-url" (a bare name other than matrix.server_name means https://server_name). Empty means the service\'s own homeserver only, reached at matrix.homeserver_url. Others are reached under the address policy of origin verification.',
  },
  "dashboard.session_ttl_seconds": {
    type: "integer",
    default: 3600,
    min: 60,
    max: 604800,
    doc: "How long a dashboard session lasts after signing in; signing in again opens a new one.",
  },

  "media.proxy_enabled": {
    type: "boolean",
    default: true,
    doc: "Serve media through the signed proxy GET /api/v1/media/…: reads rewrite every mxc:// URL to a signed proxy URL. false: reads show raw mxc:// URLs and the proxy answers 404 media-proxy-disabled.",
  },
  "imports.max_upload_bytes": {
    type: "integer",
    default: 67108864,
    min: 1,
    doc: "Largest file (bytes) the operator import route accepts (POST /api/v1/operator/sites/{site_id}/imports, 413 payload-too-large beyond it); the upload is held in memory until it is written to a temporary file, so larger exports go through npm run import, which streams.",
  },
  "imports.concurrency": {
    type: "integer",
    default: 8,
    min: 1,
    max: 64,
    doc: "Pages an import sends side by side (each page's comments in order); npm run import takes --concurrency instead.",
  },
  "media.proxy_max_bytes": {
    type: "integer",
    default: 52428800,
    min: 1,
    doc: "Largest media (bytes) the proxy serves; larger media is refused (404 media-too-large) or cut off mid-stream when the homeserver did not declare its size.",
  },
  "media.proxy_timeout_ms": {
    type: "integer",
    default: 20000,
    min: 100,
    max: 600000,
    doc: "How long the proxy waits for the homeserver to start answering a media request.",
  },
  "media.max_image_bytes": {
    type: "integer",
    default: 10485760,
    min: 1,
    doc: "Largest image upload (bytes) accepted by POST …/media; larger: 413 payload-too-large.",
  },
  "media.max_video_bytes": { type: "integer", default: 52428800, min: 1, doc: "Largest video upload (bytes)." },
  "media.max_audio_bytes": {
    type: "integer",
    default: 20971520,
    min: 1,
    doc: "Largest audio upload (bytes), voice messages included.",
  },
  "media.max_file_bytes": {
    type: "integer",
    default: 20971520,
    min: 1,
    doc: "Largest file upload (bytes): PDF and plain text.",
  },

  "queue.poll_interval_ms": {
    type: "integer",
    default: 250,
    min: 10,
    max: 60000,
    doc: "How often the worker looks for due submissions when idle.",
  },
  "queue.max_attempts": {
    type: "integer",
    default: 8,
    min: 1,
    max: 100,
    doc: "Attempts on transient homeserver failures before a submission is marked failed.",
  },
  "queue.retry_base_ms": {
    type: "integer",
    default: 1000,
    min: 1,
    max: 600000,
    doc: "The first retry waits between this and twice this (jittered); each next one doubles, capped at 10 minutes.",
  },
  "queue.concurrency": {
    type: "integer",
    default: 8,
    min: 1,
    max: 256,
    doc: "Submissions one instance performs at once, each for a different page (a page's submissions go one at a time, in order).",
  },
  "queue.lease_ms": {
    type: "integer",
    default: 60000,
    min: 1000,
    max: 3600000,
    doc: "How long a worker holds a claimed submission before another instance may take it; renewed while the work runs.",
  },

  "live.max_unsent_bytes": {
    type: "integer",
    default: 1048576,
    min: 65536,
    max: 67108864,
    doc: "Output an SSE client may leave unread (or, while it catches up from Last-Event-ID, that may wait for it) before it is disconnected; it resumes with Last-Event-ID.",
  },
  "live.fallback_poll_ms": {
    type: "integer",
    default: 10000,
    min: 100,
    max: 3600000,
    doc: "How often every instance looks for new live events on its own, in case a signal was lost (new events are normally announced at once: in-process, or by PostgreSQL NOTIFY to every instance).",
  },

  "cluster.leader_retry_ms": {
    type: "integer",
    default: 3000,
    min: 50,
    max: 600000,
    doc: "How often a standby instance tries to become the leader that runs the background passes (retirement, maintenance), and the leader checks its lock's connection; also how soon a lost leader or signal connection is reopened. With PostgreSQL only.",
  },

  "read_cache.max_entries": {
    type: "integer",
    default: 10000,
    min: 0,
    max: 10000000,
    doc: "Serialized public read responses kept per instance (least recently used out first); 0 turns the read cache off (and with it the sharing of concurrent identical reads: every read runs).",
  },
  "read_cache.max_bytes": {
    type: "integer",
    default: 67108864,
    min: 0,
    max: 17179869184,
    doc: "Bytes of cached response bodies kept per instance.",
  },

  "webhooks.allow_private_destinations": {
    type: "boolean",
    default: false,
    doc: "Allow webhook endpoints on non-public addresses (IANA's special-purpose ranges: loopback, private, link-local, unique-local, CGNAT, documentation, multicast …), as IP literals or as what a host name resolves to. Off, such an endpoint is refused at registration (an IP literal) or its deliveries fail (a name).",
  },
  "webhooks.retry_base_ms": {
    type: "integer",
    default: 5000,
    min: 1,
    doc: "A failed webhook delivery's first retry waits between this and twice this (jittered); each next one doubles, up to an hour.",
  },
  "webhooks.give_up_after_ms": {
    type: "integer",
    default: 86_400_000,
    min: 1,
    doc: "How long a webhook event is retried (from when it happened); past it the delivery fails and its endpoint is disabled, with the reason, until its owner enables it again.",
  },
  "webhooks.timeout_ms": {
    type: "integer",
    default: 10_000,
    min: 100,
    max: 30_000,
    doc: "How long one delivery attempt may take, connection to answer (the receiver should answer at once and work afterwards).",
  },
  "webhooks.lease_ms": {
    type: "integer",
    default: 30_000,
    min: 100,
    doc: "How long a claimed delivery is held by its instance (renewed while the attempt runs): after a crash, another instance delivers it again this much later, with the same webhook-id.",
  },
  "webhooks.poll_interval_ms": {
    type: "integer",
    default: 1000,
    min: 10,
    doc: "How often an instance looks for due webhook deliveries it was not woken for (retries, events another instance projected).",
  },

  "rate_limit.enabled": { type: "boolean", default: true, doc: "Turn all rate limits on or off." },
  "rate_limit.site_registration": {
    type: "integer",
    default: 10,
    min: 1,
    doc: "POST /api/v1/sites per client IP per hour.",
  },
  "rate_limit.verification_start": {
    type: "integer",
    default: 20,
    min: 1,
    doc: "Verification starts per client IP per hour.",
  },
  "rate_limit.verification_confirm": {
    type: "integer",
    default: 30,
    min: 1,
    doc: "Verification confirms per client per hour.",
  },
  "rate_limit.comment_write": {
    type: "integer",
    default: 120,
    min: 1,
    doc: "Comment and visitor-avatar writes per client per hour.",
  },
  "rate_limit.profile_read": {
    type: "integer",
    default: 120,
    min: 1,
    doc: "Visitor profile reads per client per hour.",
  },
  "rate_limit.challenge": {
    type: "integer",
    default: 600,
    min: 1,
    doc: "Proof-of-work challenges per client per hour.",
  },
  "rate_limit.public_read": {
    type: "integer",
    default: 1200,
    min: 1,
    doc: "Public reads (comment lists, room metadata, roles, stickers) per client per hour.",
  },
  "rate_limit.media_proxy": {
    type: "integer",
    default: 3600,
    min: 1,
    doc: "Media proxy requests (GET /api/v1/media/…) per client per hour.",
  },
  "rate_limit.media_upload": {
    type: "integer",
    default: 60,
    min: 1,
    doc: "Visitor media uploads (POST …/media) per client per hour, counted before the body is read.",
  },
  "rate_limit.claim_token": {
    type: "integer",
    default: 60,
    min: 1,
    doc: "Claim-token authentication attempts per client per minute.",
  },
  "rate_limit.governance_write": {
    type: "integer",
    default: 60,
    min: 1,
    doc: "Site governance writes per client per hour, after authentication.",
  },
  "rate_limit.bot_message": {
    type: "integer",
    default: 20,
    min: 1,
    doc: "Messages and invites per Matrix user per minute the AS bot handles; past it the bot sends one notice, then ignores the user until the minute is over.",
  },
  "rate_limit.operator": { type: "integer", default: 60, min: 1, doc: "Operator API requests per client per minute." },
  "rate_limit.sse_per_hour": {
    type: "integer",
    default: 120,
    min: 1,
    doc: "SSE connections per client per hour (token bucket refill).",
  },
  "rate_limit.sse_burst": {
    type: "integer",
    default: 8,
    min: 1,
    doc: "SSE connection burst per client (token bucket size).",
  },
  "rate_limit.redis_url": {
    type: "string",
    default: "",
    blankIsNull: true,
    doc: "redis://… to keep the shared rate-limit counters in Redis; empty: in PostgreSQL when the database is PostgreSQL, else in each instance's memory.",
  },
  "rate_limit.sse_max_streams": { type: "integer", default: 500, min: 1, doc: "Open SSE streams per instance." },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
type Section = ConfigKey extends `${infer S}.${string}` ? S : never;
type ValueOf<Spec extends KeySpec> = Spec extends { values: readonly (infer V)[] }
  ? V
  : Spec extends { blankIsNull: true }
    ? string | null
    : { string: string; integer: number; boolean: boolean; "string[]": string[] }[Spec["type"]];

/** The values of CONFIG_KEYS as the loader reads them: `[section] key` becomes `section.key`, camelCase. */
export type ConfigValues = {
  [S in Section as Camel<S>]: {
    [K in ConfigKey as K extends `${S}.${infer Name}` ? Camel<Name> : never]: ValueOf<(typeof CONFIG_KEYS)[K]>;
  };
};

/** Keys of a `[sites.<site_id>]` table: a site declared in configuration. */
export const SITE_KEYS = {
  origins: { type: "string[]", default: [], doc: "Origins allowed to write for this site (scheme://host[:port])." },
  secret: {
    type: "string",
    default: "",
    doc: "HMAC secret for server-side writes; when set, writes must be HMAC-signed.",
  },
  moderation: {
    type: "string",
    values: ["off", "all", "first-post", "links"],
    default: "off",
    doc: "Hold new comments for review (docs/dashboard.md#holding-comments-for-review): off, all, first-post (an author's first comment on the site) or links (a comment with a URL). A setting made through the setModeration mutation overrides it.",
  },
  moderation_words: {
    type: "string[]",
    default: [],
    doc: "Hold a new comment containing one of these words (a whole word, any case), whatever the mode.",
  },
  page_url_pattern: {
    type: "string",
    default: "",
    doc: "Where the site's pages live, an http(s) URL with {page_slug} in it (e.g. https://blog.example/{page_slug}): feed entries and webhook events link each comment there, with #comment-<event id>. Set here, the owner cannot change it through the API.",
  },
} as const satisfies Record<string, KeySpec>;

/** Keys of a `[sites.<site_id>.webhooks.<name>]` table: a webhook endpoint declared in configuration. */
export const SITE_WEBHOOK_KEYS = {
  url: { type: "string", required: true, doc: "Where the events are POSTed (http or https)." },
  secret: {
    type: "string",
    required: true,
    doc: "The signing secret, whsec_ + base64 of 24-64 random bytes (Standard Webhooks).",
  },
  events: {
    type: "string[]",
    default: [],
    doc: "The event types sent (comment.created, comment.edited, comment.deleted, comment.held); empty: all.",
  },
} as const satisfies Record<string, KeySpec>;
