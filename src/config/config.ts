// Loading and validating the TOML configuration into a typed Config.
import { readFileSync } from "node:fs";
import { Resolver } from "node:dns";
import { parse as parseToml } from "smol-toml";
import { CONFIG_KEYS, SITE_KEYS, type KeySpec } from "./keys.ts";
import { normalizeOrigin } from "../security/origin.ts";
import { TrustedProxies } from "../security/client-ip.ts";
import { isValidSiteId } from "../core/identifiers.ts";

export interface SiteDeclaration {
  siteId: string;
  origins: string[];
  secret: string | null;
}

/** Which API-registered sites must verify an origin before they accept writes (security.verification_policy). */
export type VerificationPolicy = "optional" | "strict";

export interface Config {
  server: { listenHost: string; listenPort: number; publicBaseUrl: string | null; trustedProxies: string[] };
  database: { url: string };
  matrix: {
    homeserverUrl: string;
    serverName: string;
    asToken: string;
    hsToken: string;
    appserviceId: string;
    appserviceUrl: string | null;
    namespacePrefix: string;
    registrationFile: string;
    roomVersion: string;
    requestTimeoutMs: number;
  };
  security: { operatorToken: string | null; allowPrivateVerificationOrigins: boolean; verificationPolicy: VerificationPolicy; powDifficulty: number; dnsResolver: string | null };
  media: { proxyEnabled: boolean; proxyMaxBytes: number; proxyTimeoutMs: number; maxImageBytes: number; maxVideoBytes: number; maxAudioBytes: number; maxFileBytes: number };
  queue: { pollIntervalMs: number; maxAttempts: number; retryBaseMs: number; concurrency: number; leaseMs: number };
  live: { maxUnsentBytes: number; fallbackPollMs: number };
  cluster: { leaderRetryMs: number };
  readCache: { maxEntries: number; maxBytes: number };
  rateLimit: {
    enabled: boolean;
    siteRegistration: number;
    verificationStart: number;
    verificationConfirm: number;
    commentWrite: number;
    profileRead: number;
    challenge: number;
    publicRead: number;
    mediaProxy: number;
    mediaUpload: number;
    claimToken: number;
    governanceWrite: number;
    botMessage: number;
    operator: number;
    ssePerHour: number;
    sseBurst: number;
    sseMaxStreams: number;
  };
  sites: SiteDeclaration[];
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Flat = Record<string, unknown>;

const camel = (snake: string): string => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function checkValue(key: string, spec: KeySpec, value: unknown): unknown {
  const fail = (what: string): never => {
    throw new ConfigError(`configuration key "${key}": ${what}`);
  };
  switch (spec.type) {
    case "string":
      if (typeof value !== "string") fail(`expected a string, got ${JSON.stringify(value)}`);
      if (spec.values && !spec.values.includes(value as string)) fail(`expected one of ${spec.values.map((v) => JSON.stringify(v)).join(", ")}, got ${JSON.stringify(value)}`);
      return value;
    case "boolean":
      if (typeof value !== "boolean") fail(`expected true or false, got ${JSON.stringify(value)}`);
      return value;
    case "integer": {
      const n = typeof value === "bigint" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isInteger(n)) fail(`expected an integer, got ${JSON.stringify(value)}`);
      const num = n as number;
      if (spec.min !== undefined && num < spec.min) fail(`must be at least ${spec.min}`);
      if (spec.max !== undefined && num > spec.max) fail(`must be at most ${spec.max}`);
      return num;
    }
    case "string[]":
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) fail("expected an array of strings");
      return value;
  }
}

/** Flattens `{a: {b: 1}}` to `{"a.b": 1}`, stopping at `[sites]`, which has its own shape. */
function flatten(doc: Record<string, unknown>): { flat: Flat; sites: Record<string, unknown> } {
  const flat: Flat = {};
  let sites: Record<string, unknown> = {};
  for (const [section, body] of Object.entries(doc)) {
    if (section === "sites") {
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ConfigError('configuration key "sites": expected a table of [sites.<site_id>] tables');
      sites = body as Record<string, unknown>;
      continue;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new ConfigError(`configuration key "${section}": unknown key (top-level keys must be sections such as [server])`);
    }
    for (const [name, value] of Object.entries(body)) flat[`${section}.${name}`] = value;
  }
  return { flat, sites };
}

function readSites(raw: Record<string, unknown>): SiteDeclaration[] {
  return Object.entries(raw).map(([siteId, body]) => {
    const where = `sites.${siteId}`;
    if (!isValidSiteId(siteId)) throw new ConfigError(`configuration key "${where}": site id must be 1-64 characters of [a-z0-9-]`);
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ConfigError(`configuration key "${where}": expected a table`);
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(body)) {
      const spec = (SITE_KEYS as Record<string, KeySpec>)[name];
      if (!spec) throw new ConfigError(`configuration key "${where}.${name}": unknown key`);
      values[name] = checkValue(`${where}.${name}`, spec, value);
    }
    const origins = ((values.origins as string[] | undefined) ?? []).map((o) => {
      const normalized = normalizeOrigin(o);
      if (!normalized) throw new ConfigError(`configuration key "${where}.origins": "${o}" is not an origin (scheme://host[:port])`);
      return normalized;
    });
    const secret = (values.secret as string | undefined) || null;
    return { siteId, origins: [...new Set(origins)], secret };
  });
}

/** Validates a parsed TOML document (plus overrides, e.g. from the dev launcher) into a Config. */
export function buildConfig(doc: Record<string, unknown>, overrides: Flat = {}): Config {
  const { flat, sites } = flatten(doc);
  Object.assign(flat, overrides);
  const specs = CONFIG_KEYS as Record<string, KeySpec>;
  for (const key of Object.keys(flat)) {
    if (!specs[key]) throw new ConfigError(`configuration key "${key}": unknown key`);
  }
  const nested: Record<string, Record<string, unknown>> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const present = key in flat && flat[key] !== undefined;
    if (!present && spec.required) throw new ConfigError(`configuration key "${key}": required`);
    const value = present ? checkValue(key, spec, flat[key]) : spec.default;
    const [section, name] = key.split(".") as [string, string];
    (nested[camel(section)] ??= {})[camel(name)] = value;
  }
  const server = nested.server!;
  const security = nested.security!;
  const matrix = nested.matrix!;
  for (const key of ["server.public_base_url", "matrix.homeserver_url", "matrix.appservice_url"]) {
    const value = key in flat ? (flat[key] as string) : "";
    if (value && !/^https?:\/\/[^/]+/.test(value)) throw new ConfigError(`configuration key "${key}": expected an http(s) URL`);
  }
  try {
    new TrustedProxies(server.trustedProxies as string[]);
  } catch (err) {
    throw new ConfigError(`configuration key "server.trusted_proxies": ${(err as Error).message}`);
  }
  try {
    // Throws unless it is what Resolver#setServers accepts ("ip", "ip:port", "[ipv6]:port").
    if (security.dnsResolver) new Resolver().setServers([security.dnsResolver as string]);
  } catch (err) {
    throw new ConfigError(`configuration key "security.dns_resolver": ${(err as Error).message}`);
  }
  for (const key of ["as_token", "hs_token"] as const) {
    if (!(matrix[camel(key)] as string)) throw new ConfigError(`configuration key "matrix.${key}": must not be empty`);
  }
  if (matrix.asToken === matrix.hsToken) throw new ConfigError('configuration key "matrix.hs_token": must differ from matrix.as_token');
  const dbUrl = nested.database!.url as string;
  if (!/^(file:|postgres(ql)?:\/\/)/.test(dbUrl)) throw new ConfigError('configuration key "database.url": expected file:<path> or postgres://…');
  if (!/^[a-z0-9_.=-]+$/.test(matrix.namespacePrefix as string)) throw new ConfigError('configuration key "matrix.namespace_prefix": only [a-z0-9_.=-] allowed');
  return {
    server: {
      listenHost: server.listenHost as string,
      listenPort: server.listenPort as number,
      publicBaseUrl: ((server.publicBaseUrl as string) || null)?.replace(/\/+$/, "") ?? null,
      trustedProxies: server.trustedProxies as string[],
    },
    database: { url: dbUrl },
    matrix: {
      ...(matrix as Omit<Config["matrix"], "appserviceUrl">),
      homeserverUrl: (matrix.homeserverUrl as string).replace(/\/+$/, ""),
      appserviceUrl: (matrix.appserviceUrl as string) || null,
    },
    security: {
      operatorToken: (security.operatorToken as string) || null,
      allowPrivateVerificationOrigins: security.allowPrivateVerificationOrigins as boolean,
      verificationPolicy: security.verificationPolicy as VerificationPolicy,
      powDifficulty: security.powDifficulty as number,
      dnsResolver: (security.dnsResolver as string) || null,
    },
    media: nested.media as Config["media"],
    queue: nested.queue as Config["queue"],
    live: nested.live as Config["live"],
    cluster: nested.cluster as Config["cluster"],
    readCache: nested.readCache as Config["readCache"],
    rateLimit: nested.rateLimit as Config["rateLimit"],
    sites: readSites(sites),
  };
}

export function parseConfigText(text: string, source: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`${source}: invalid TOML: ${(err as Error).message}`);
  }
}

/** Reads the configuration file at `path` (TOML). */
export function loadConfigFile(path: string, overrides: Flat = {}): Config {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read configuration file ${path}: ${(err as Error).message}`);
  }
  try {
    return buildConfig(parseConfigText(text, path), overrides);
  } catch (err) {
    if (err instanceof ConfigError && !err.message.startsWith(path)) err.message = `${path}: ${err.message}`;
    throw err;
  }
}

/** The URL the homeserver uses to reach this service. */
export function appserviceUrl(config: Config): string {
  return config.matrix.appserviceUrl ?? `http://${config.server.listenHost}:${config.server.listenPort}`;
}
