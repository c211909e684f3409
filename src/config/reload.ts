// What re-reading the configuration file changes in a running instance (SIGHUP: src/cli/start.ts):
// the log level at once, so an operator can turn the request log or debug lines on and off without
// a restart; any other change waits for one, and the instance says which sections hold such
// changes, so that no one believes an edited key took effect.
import type { Config } from "./config.ts";

export interface ConfigReload {
  /** The log level to switch to (null: unchanged). */
  logLevel: string | null;
  /** The configuration's sections (its file's tables: "server", "database", "sites", …) changed in ways that take effect on restart. */
  onRestart: string[];
}

export function configReload(running: Config, next: Config): ConfigReload {
  // The log level is applied; compared without it, every other difference waits for a restart.
  const rest = (config: Config): Record<string, unknown> => ({ ...config, log: { ...config.log, level: null } });
  const [before, after] = [rest(running), rest(next)];
  const sections = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return {
    logLevel: next.log.level === running.log.level ? null : next.log.level,
    onRestart: sections
      .filter((section) => JSON.stringify(before[section]) !== JSON.stringify(after[section]))
      .map((section) => section.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)),
  };
}
