// Loading and validating the TOML configuration into a typed Config.
import { readFileSync } from "node:fs";
import { Resolver } from "node:dns";
import { parse as parseToml } from "smol-toml";
import { CONFIG_KEYS, SITE_KEYS, SITE_WEBHOOK_KEYS, type ConfigValues, type KeySpec } from "./keys.ts";
import { normalizeOrigin } from "../security/origin.ts";
import { TrustedProxies } from "../security/client-ip.ts";
import { isValidSiteId } from "../core/identifiers.ts";
import { HOLD_WORDS_LIMITS } from "./limits.ts";
import { environmentOverrides } from "./environment.ts";

export interface SiteDeclaration {
  siteId: string;
  origins: string[];
  secret: string | null;
  /** [sites.<id>].page_url_pattern; null: not declared (the owner may set one). */
  pageUrlPattern: string | null;
  webhooks: WebhookDeclaration[];
  /** Holding comments for review (the moderation feature's default for the site), when configured. */
  moderation?: "off" | "all" | "first-post" | "links";
  moderationWords?: string[];
}

/** A webhook endpoint declared in [sites.<id>.webhooks.<name>]. */
export interface WebhookDeclaration {
  name: string;
  url: string;
  secret: string;
  events: string[];
}

/** Whether `pattern` is an http(s) URL with {page_slug} in it (a site's page URL pattern). */
export const isPageUrlPattern = (pattern: string): boolean =>
  /^https?:\/\/[^/\s]+/.test(pattern) &&
  pattern.includes("{page_slug}") &&
  URL.canParse(pattern.replaceAll("{page_slug}", "x"));

/** A Standard Webhooks signing secret: whsec_ and the base64 of 24-64 bytes. */
export const isWebhookSecret = (secret: string): boolean => {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  const size = match ? Buffer.from(match[1]!, "base64").length : 0;
  return size >= 24 && size <= 64;
};

/** Event types a webhook can be sent (src/features/webhooks/events.ts documents each). */
export const WEBHOOK_EVENT_TYPES = ["comment.created", "comment.edited", "comment.deleted", "comment.held"] as const;

/** The configuration: every key of CONFIG_KEYS (its type derived from the table) plus the declared sites. */
export type Config = ConfigValues & { sites: SiteDeclaration[] };

/** Which API-registered sites must verify an origin before they accept writes (security.verification_policy). */
export type VerificationPolicy = Config["security"]["verificationPolicy"];

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
      if (spec.pattern && value !== "" && !spec.pattern.regex.test(value as string))
        fail(`expected ${spec.pattern.description}`);
      if (spec.values && !spec.values.includes(value as string))
        fail(`expected one of ${spec.values.map((v) => JSON.stringify(v)).join(", ")}, got ${JSON.stringify(value)}`);
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
      if (typeof body !== "object" || body === null || Array.isArray(body))
        throw new ConfigError('configuration key "sites": expected a table of [sites.<site_id>] tables');
      sites = body as Record<string, unknown>;
      continue;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new ConfigError(
        `configuration key "${section}": unknown key (top-level keys must be sections such as [server])`,
      );
    }
    for (const [name, value] of Object.entries(body)) flat[`${section}.${name}`] = value;
  }
  return { flat, sites };
}

function readSites(raw: Record<string, unknown>): SiteDeclaration[] {
  return Object.entries(raw).map(([siteId, body]) => {
    const where = `sites.${siteId}`;
    if (!isValidSiteId(siteId))
      throw new ConfigError(`configuration key "${where}": site id must be 1-64 characters of [a-z0-9-]`);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new ConfigError(`configuration key "${where}": expected a table`);
    const values: Record<string, unknown> = {};
    let webhooks: WebhookDeclaration[] = [];
    for (const [name, value] of Object.entries(body)) {
      if (name === "webhooks") {
        webhooks = readWebhooks(`${where}.webhooks`, value);
        continue;
      }
      const spec = (SITE_KEYS as Record<string, KeySpec>)[name];
      if (!spec) throw new ConfigError(`configuration key "${where}.${name}": unknown key`);
      values[name] = checkValue(`${where}.${name}`, spec, value);
    }
    const origins = ((values.origins as string[] | undefined) ?? []).map((o) => {
      const normalized = normalizeOrigin(o);
      if (!normalized)
        throw new ConfigError(`configuration key "${where}.origins": "${o}" is not an origin (scheme://host[:port])`);
      return normalized;
    });
    const secret = (values.secret as string | undefined) || null;
    const pageUrlPattern = (values.page_url_pattern as string | undefined) || null;
    if (pageUrlPattern !== null && !isPageUrlPattern(pageUrlPattern))
      throw new ConfigError(
        `configuration key "${where}.page_url_pattern": expected an http(s) URL with {page_slug} in it`,
      );
    const moderation = values.moderation as SiteDeclaration["moderation"] | undefined;
    const words = values.moderation_words as string[] | undefined;
    if (
      words &&
      (words.length > HOLD_WORDS_LIMITS.maxWords || words.some((w) => [...w].length > HOLD_WORDS_LIMITS.maxWordLength))
    )
      throw new ConfigError(
        `configuration key "${where}.moderation_words": at most ${HOLD_WORDS_LIMITS.maxWords} words of at most ${HOLD_WORDS_LIMITS.maxWordLength} characters`,
      );
    return {
      siteId,
      origins: [...new Set(origins)],
      secret,
      pageUrlPattern,
      webhooks,
      ...(moderation ? { moderation } : {}),
      ...(words ? { moderationWords: words } : {}),
    };
  });
}

function readWebhooks(where: string, raw: unknown): WebhookDeclaration[] {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(`configuration key "${where}": expected a table of [${where}.<name>] tables`);
  return Object.entries(raw).map(([name, body]) => {
    const at = `${where}.${name}`;
    if (!/^[a-z0-9-]{1,64}$/.test(name))
      throw new ConfigError(`configuration key "${at}": a webhook name is 1-64 characters of [a-z0-9-]`);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new ConfigError(`configuration key "${at}": expected a table`);
    const specs: Record<string, KeySpec> = SITE_WEBHOOK_KEYS;
    const values: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) {
      if (!specs[key]) throw new ConfigError(`configuration key "${at}.${key}": unknown key`);
      values[key] = checkValue(`${at}.${key}`, specs[key], value);
    }
    for (const [key, spec] of Object.entries(specs))
      if (spec.required && values[key] === undefined)
        throw new ConfigError(`configuration key "${at}.${key}": required`);
    const url = values.url as string;
    if (!/^https?:\/\/[^/\s]+/.test(url) || !URL.canParse(url))
      throw new ConfigError(`configuration key "${at}.url": expected an http(s) URL`);
    const secret = values.secret as string;
    if (!isWebhookSecret(secret))
      throw new ConfigError(`configuration key "${at}.secret": expected whsec_ and the base64 of 24-64 bytes`);
    const events = (values.events as string[] | undefined) ?? [];
    const unknown = events.find((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
    if (unknown !== undefined)
      throw new ConfigError(`configuration key "${at}.events": unknown event type ${JSON.stringify(unknown)}`);
    return { name, url, secret, events };
  });
}

/** Every key of CONFIG_KEYS from `flat` (validated) or its default, nested by section. */
function readKeys(flat: Flat): ConfigValues {
  const specs: Record<string, KeySpec> = CONFIG_KEYS;
  for (const key of Object.keys(flat)) {
    if (!specs[key]) throw new ConfigError(`configuration key "${key}": unknown key`);
  }
  const nested: Record<string, Record<string, unknown>> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const present = key in flat && flat[key] !== undefined;
    if (!present && spec.required) throw new ConfigError(`configuration key "${key}": required`);
    const value = present ? checkValue(key, spec, flat[key]) : spec.default;
    const [section, name] = key.split(".") as [string, string];
    (nested[camel(section)] ??= {})[camel(name)] = spec.blankIsNull && value === "" ? null : value;
  }
  // The one place the table's values meet their type, which ConfigValues derives from the same table.
  return nested as ConfigValues;
}

/** Validates a parsed TOML document (plus overrides, e.g. from the dev launcher) into a Config. */
export function buildConfig(doc: Record<string, unknown>, overrides: Flat = {}): Config {
  const { flat, sites } = flatten(doc);
  Object.assign(flat, overrides);
  const values = readKeys(flat);
  const { server, security, matrix } = values;
  for (const key of ["server.public_base_url", "matrix.homeserver_url", "matrix.appservice_url"]) {
    const value = key in flat ? (flat[key] as string) : "";
    if (value && !/^https?:\/\/[^/]+/.test(value))
      throw new ConfigError(`configuration key "${key}": expected an http(s) URL`);
  }
  try {
    new TrustedProxies(server.trustedProxies);
  } catch (err) {
    throw new ConfigError(`configuration key "server.trusted_proxies": ${(err as Error).message}`);
  }
  try {
    // Throws unless it is what Resolver#setServers accepts ("ip", "ip:port", "[ipv6]:port").
    if (security.dnsResolver) new Resolver().setServers([security.dnsResolver as string]);
  } catch (err) {
    throw new ConfigError(`configuration key "security.dns_resolver": ${(err as Error).message}`);
  }
  if (!matrix.asToken) throw new ConfigError('configuration key "matrix.as_token": must not be empty');
  if (!matrix.hsToken) throw new ConfigError('configuration key "matrix.hs_token": must not be empty');
  if (matrix.asToken === matrix.hsToken)
    throw new ConfigError('configuration key "matrix.hs_token": must differ from matrix.as_token');
  if (!/^(file:|postgres(ql)?:\/\/)/.test(values.database.url))
    throw new ConfigError('configuration key "database.url": expected file:<path> or postgres://…');
  if (!/^[a-z0-9_.=-]+$/.test(matrix.namespacePrefix))
    throw new ConfigError('configuration key "matrix.namespace_prefix": only [a-z0-9_.=-] allowed');
  return {
    ...values,
    server: { ...server, publicBaseUrl: server.publicBaseUrl?.replace(/\/+$/, "") ?? null },
    matrix: { ...matrix, homeserverUrl: matrix.homeserverUrl.replace(/\/+$/, "") },
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

/** Reads the configuration file at `path` (TOML), with the keys `env` sets (src/config/environment.ts) over it. */
export function loadConfigFile(path: string, overrides: Flat = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const fromEnvironment = environmentOverrides(env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read configuration file ${path}: ${(err as Error).message}`);
  }
  try {
    return buildConfig(parseConfigText(text, path), { ...fromEnvironment, ...overrides });
  } catch (err) {
    if (err instanceof ConfigError && !err.message.startsWith(path)) err.message = `${path}: ${err.message}`;
    throw err;
  }
}

/** The URL the homeserver uses to reach this service. */
export function appserviceUrl(config: Config): string {
  return config.matrix.appserviceUrl ?? `http://${config.server.listenHost}:${config.server.listenPort}`;
}
