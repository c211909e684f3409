// Configuration keys from the environment, for containers: COMMENT_SERVICE_<SECTION>_<KEY>
// (the key's name upper-cased, "." and "_" both "_": matrix.as_token is
// COMMENT_SERVICE_MATRIX_AS_TOKEN) overrides the file's value; <NAME>_FILE reads it from that
// file instead (Docker and Compose secrets), its trailing line break dropped. The names are
// derived from CONFIG_KEYS, so any other COMMENT_SERVICE_* variable is refused, not ignored.
// [sites.<id>] tables come from the file only.
import { readFileSync } from "node:fs";
import { CONFIG_KEYS, type KeySpec } from "./keys.ts";
import { ConfigError } from "./config.ts";

const PREFIX = "COMMENT_SERVICE_";
/** Variables of that prefix that are not keys: the configuration file's path. */
const NOT_KEYS = new Set(["COMMENT_SERVICE_CONFIG"]);

/** The environment variable of a configuration key. */
export const environmentName = (key: string): string => PREFIX + key.replace(".", "_").toUpperCase();

const BY_NAME = new Map(Object.keys(CONFIG_KEYS).map((key) => [environmentName(key), key]));

/** A variable's text as its key's type: integers in decimal, true/false, lists comma-separated. */
function typed(name: string, spec: KeySpec, text: string): unknown {
  switch (spec.type) {
    case "string":
      return text;
    case "integer":
      if (!/^-?\d+$/.test(text.trim())) throw new ConfigError(`environment variable ${name}: expected an integer`);
      return Number(text.trim());
    case "boolean":
      if (text.trim() !== "true" && text.trim() !== "false")
        throw new ConfigError(`environment variable ${name}: expected true or false`);
      return text.trim() === "true";
    case "string[]":
      return text.trim() === "" ? [] : text.split(",").map((item) => item.trim());
  }
}

/** The configuration keys the environment sets, as flat `section.key` overrides. */
export function environmentOverrides(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith(PREFIX) || NOT_KEYS.has(variable) || value === undefined) continue;
    const fromFile = variable.endsWith("_FILE") && !BY_NAME.has(variable);
    const name = fromFile ? variable.slice(0, -"_FILE".length) : variable;
    const key = BY_NAME.get(name);
    if (!key) throw new ConfigError(`environment variable ${variable}: no such configuration key`);
    if (fromFile && env[name] !== undefined)
      throw new ConfigError(`environment variables ${name} and ${variable}: set one of them, not both`);
    let text = value;
    if (fromFile) {
      try {
        text = readFileSync(value, "utf8").replace(/\r?\n$/, "");
      } catch (err) {
        throw new ConfigError(`environment variable ${variable}: cannot read ${value}: ${(err as Error).message}`);
      }
    }
    overrides[key] = typed(variable, (CONFIG_KEYS as Record<string, KeySpec>)[key]!, text);
  }
  return overrides;
}
