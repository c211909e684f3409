// What a SIGHUP's re-read of the configuration file changes (src/config/reload.ts): the log level
// at once; every other change is named by its section, for a restart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildConfig, parseConfigText } from "../../src/config/config.ts";
import { configReload } from "../../src/config/reload.ts";

const BASE = `[matrix]\nas_token = "as-token"\nhs_token = "hs-token"\n`;
const load = (extra = "") => buildConfig(parseConfigText(`${BASE}${extra}`, "test.toml"));

test("the same file changes nothing", () => {
  assert.deepEqual(configReload(load(), load()), { logLevel: null, onRestart: [] });
});

test("a new log level is applied, and nothing waits for a restart", () => {
  assert.deepEqual(configReload(load(), load('[log]\nlevel = "warn"\n')), { logLevel: "warn", onRestart: [] });
  assert.deepEqual(configReload(load('[log]\nlevel = "warn"\n'), load()), { logLevel: "info", onRestart: [] });
});

test("other changes are named by their section as the file spells it, the log level applied beside them", () => {
  const running = load();
  assert.deepEqual(configReload(running, load('[database]\nurl = "file:./other.db"\n')), {
    logLevel: null,
    onRestart: ["database"],
  });
  assert.deepEqual(
    configReload(
      running,
      load('[log]\nlevel = "debug"\n[read_cache]\nmax_entries = 5\n[server]\nlisten_port = 9000\n'),
    ),
    { logLevel: "debug", onRestart: ["read_cache", "server"] },
  );
  assert.deepEqual(configReload(running, load('[sites.blog]\norigins = ["https://blog.example"]\n')), {
    logLevel: null,
    onRestart: ["sites"],
  });
});
