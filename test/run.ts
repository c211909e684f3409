// npm test: type-checks, format-checks and lints the project, starts a fresh test Synapse (provisioning it on first
// use), runs every unit and integration test with node's test runner, and stops Synapse again.
// Every test process loads the contract hook (test/support/contract-hook.ts), which checks
// the service's responses against the OpenAPI document.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { buildConfig } from "../src/config/config.ts";
import { startLocalHomeserver, stopLocalHomeserver } from "../src/matrix/local-homeserver.ts";
import { writeRegistration } from "../src/app/app.ts";
import { testConfigDocument } from "./support/harness.ts";
import { TEST_SERVER_NAME, TEST_SYNAPSE_INSTANCE, TEST_SYNAPSE_PORT } from "./support/environment.ts";

const root = resolve(import.meta.dirname, "..");
const only = process.argv.slice(2);
const files = ["unit", "integration"]
  .flatMap((dir) =>
    readdirSync(join(root, "test", dir))
      .filter((f) => f.endsWith(".test.ts"))
      .sort()
      .map((f) => join("test", dir, f)),
  )
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));

if (files.length === 0) {
  console.error(`test: no test file matches ${only.join(", ")}`);
  process.exit(2);
}
if (only.length === 0) {
  console.log("test: type-checking (tsc --noEmit)");
  const tsc = spawnSync(join(root, "node_modules/.bin/tsc"), ["--noEmit", "-p", root], { stdio: "inherit" });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  console.log("test: formatting and lint (biome check)");
  const biome = spawnSync(join(root, "node_modules/.bin/biome"), ["check", root], { stdio: "inherit" });
  if (biome.status !== 0) process.exit(biome.status ?? 1);
}

const work = mkdtempSync(join(tmpdir(), "comment-service-test-"));
const registration = writeRegistration(
  buildConfig(testConfigDocument({ registrationFile: join(work, "registration.yaml") })),
);
const needsHomeserver = files.some((f) => f.includes("integration"));
if (needsHomeserver) {
  console.log(`test: starting a fresh Synapse (instance "${TEST_SYNAPSE_INSTANCE}", port ${TEST_SYNAPSE_PORT})`);
  startLocalHomeserver({
    instance: TEST_SYNAPSE_INSTANCE,
    port: TEST_SYNAPSE_PORT,
    serverName: TEST_SERVER_NAME,
    registrationFile: registration,
    fresh: true,
  });
}
let status = 1;
try {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--import", "./test/support/contract-hook.ts", "--test", "--test-concurrency=1", ...files],
    {
      cwd: root,
      stdio: "inherit",
      // TEST_FULL_SUITE: the contract coverage test needs every test file to have run.
      env: { ...process.env, TEST_WORK_DIR: work, ...(only.length === 0 ? { TEST_FULL_SUITE: "1" } : {}) },
    },
  );
  status = result.status ?? 1;
} finally {
  if (needsHomeserver) stopLocalHomeserver(TEST_SYNAPSE_INSTANCE);
  rmSync(work, { recursive: true, force: true });
}
process.exit(status);
