import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CONFIG_KEYS, SITE_KEYS } from "../../src/config/keys.ts";

test("the README documents every configuration key", () => {
  const readme = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8");
  for (const key of Object.keys(CONFIG_KEYS)) assert.ok(readme.includes(`| \`${key}\` |`), `README lacks ${key}`);
  for (const key of Object.keys(SITE_KEYS)) assert.ok(readme.includes(`| \`sites.<site_id>.${key}\` |`), `README lacks sites.<site_id>.${key}`);
});
