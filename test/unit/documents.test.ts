// The documents keep up with the code: the configuration reference lists every key, and the
// README's test command is the one CI runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CONFIG_KEYS, SITE_KEYS } from "../../src/config/keys.ts";

const read = (path: string) => readFileSync(resolve(import.meta.dirname, "../..", path), "utf8");

test("docs/configuration.md documents every configuration key", () => {
  const reference = read("docs/configuration.md");
  for (const key of Object.keys(CONFIG_KEYS))
    assert.ok(reference.includes(`| \`${key}\` |`), `docs/configuration.md lacks ${key}`);
  for (const key of Object.keys(SITE_KEYS))
    assert.ok(
      reference.includes(`| \`sites.<site_id>.${key}\` |`),
      `docs/configuration.md lacks sites.<site_id>.${key}`,
    );
});

test("CI runs the README's test command", () => {
  const commands = read(".ci/run")
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#") && !line.startsWith("set ") && !line.startsWith("cd "));
  assert.ok(commands.includes("npm test"), ".ci/run lacks npm test");
  // After it only the second Node.js major's pass, which runs the same tests again.
  for (const line of commands.slice(commands.indexOf("npm test") + 1)) assert.match(line, /scripts\/test-on-node\.sh/);
  assert.match(read("README.md"), /^npm install && npm test\b/m);
});
