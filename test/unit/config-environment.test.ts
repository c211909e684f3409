import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfigFile } from "../../src/config/config.ts";
import { environmentName } from "../../src/config/environment.ts";
import { CONFIG_KEYS } from "../../src/config/keys.ts";

const dir = mkdtempSync(join(tmpdir(), "config-environment-"));
const file = join(dir, "comment-service.toml");
writeFileSync(file, `[server]\nlisten_port = 9000\n[sites.blog]\norigins = ["https://blog.example"]\n`);
const secret = join(dir, "as_token");
writeFileSync(secret, "as-from-file\n");

const rejects = (env: NodeJS.ProcessEnv, part: string) =>
  assert.throws(
    () => loadConfigFile(file, {}, env),
    (err: unknown) => err instanceof ConfigError && err.message.includes(part),
  );

describe("configuration from the environment", () => {
  test("every key has its own variable", () => {
    const names = Object.keys(CONFIG_KEYS).map(environmentName);
    assert.equal(new Set(names).size, names.length);
    assert.equal(environmentName("rate_limit.sse_burst"), "COMMENT_SERVICE_RATE_LIMIT_SSE_BURST");
  });

  test("variables override the file, typed by their key; *_FILE reads a secret from a file", () => {
    const config = loadConfigFile(
      file,
      {},
      {
        COMMENT_SERVICE_CONFIG: file,
        COMMENT_SERVICE_MATRIX_AS_TOKEN_FILE: secret,
        COMMENT_SERVICE_MATRIX_HS_TOKEN: "hs-from-env",
        COMMENT_SERVICE_SERVER_LISTEN_PORT: "8081",
        COMMENT_SERVICE_RATE_LIMIT_ENABLED: "false",
        COMMENT_SERVICE_SERVER_TRUSTED_PROXIES: "loopback, 10.0.0.0/8",
        UNRELATED: "x",
      },
    );
    assert.equal(config.matrix.asToken, "as-from-file");
    assert.equal(config.matrix.hsToken, "hs-from-env");
    assert.equal(config.server.listenPort, 8081);
    assert.equal(config.rateLimit.enabled, false);
    assert.deepEqual(config.server.trustedProxies, ["loopback", "10.0.0.0/8"]);
    assert.deepEqual(
      config.sites.map((site) => site.siteId),
      ["blog"],
    );
  });

  const tokens = { COMMENT_SERVICE_MATRIX_AS_TOKEN: "a", COMMENT_SERVICE_MATRIX_HS_TOKEN: "h" };
  test("an unknown variable of the prefix is refused, naming it", () =>
    rejects({ ...tokens, COMMENT_SERVICE_MATRIX_ASTOKEN: "x" }, "COMMENT_SERVICE_MATRIX_ASTOKEN"));
  test("a value of the wrong type is refused, naming the variable", () =>
    rejects({ ...tokens, COMMENT_SERVICE_SERVER_LISTEN_PORT: "80a" }, "COMMENT_SERVICE_SERVER_LISTEN_PORT"));
  test("a value out of range is refused, naming the key", () =>
    rejects({ ...tokens, COMMENT_SERVICE_SERVER_LISTEN_PORT: "70000" }, "server.listen_port"));
  test("a variable and its _FILE together are refused", () =>
    rejects({ ...tokens, COMMENT_SERVICE_MATRIX_AS_TOKEN_FILE: secret }, "not both"));
  test("an unreadable _FILE is refused, naming it", () =>
    rejects({ COMMENT_SERVICE_MATRIX_AS_TOKEN_FILE: join(dir, "missing") }, "COMMENT_SERVICE_MATRIX_AS_TOKEN_FILE"));
});
