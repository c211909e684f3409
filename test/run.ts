// npm test: type-checks, format-checks and lints the project (beside the tests, on the other core), starts a fresh
// test Synapse (provisioning it on first use), runs every unit and integration test with node's test runner, and
// stops Synapse again.
// Every test process loads the contract hook (test/support/contract-hook.ts), which checks
// the service's responses against the OpenAPI document.
//
// The order: the unit tests, alone (some time the event loop); then the integration files two at
// a time, one in each lane (test/support/environment.ts: a lane is an appservice of its own on
// the one Synapse), the longest first; then, alone, the files that stop or restart Synapse; last
// the files named zz-* (the contract coverage check reads what every other file exercised).
// Each file's output is printed whole when it ends, so two lanes' output never interleaves.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { tmpdir } from "node:os";
import { buildConfig } from "../src/config/config.ts";
import { startLocalHomeserver, stopLocalHomeserver } from "../src/matrix/local-homeserver.ts";
import { writeRegistration } from "../src/app/app.ts";
import { testConfigDocument } from "./support/harness.ts";
import { TEST_SERVER_NAME, TEST_SYNAPSE_INSTANCE, TEST_SYNAPSE_PORT } from "./support/environment.ts";

const root = resolve(import.meta.dirname, "..");
/** At most this many failed integration test files are run once more; more failures are not a flake. */
const MAX_RETRIED = 2;
/** Integration files run this many at a time (TEST_LANES=1: one after another). */
const LANES = Math.max(1, Number(process.env.TEST_LANES ?? 2) || 1);
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
const fullSuite = only.length === 0;
const started = Date.now();

/** A command run beside the tests; resolves its exit status and everything it printed. */
function inBackground(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number; output: string }> {
  const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => {
    child.once("error", (err) => resolve({ status: 1, output: String(err) }));
    child.once("close", (code) => resolve({ status: code ?? 1, output }));
  });
}

/**
 * The full run's type check, then its format and lint check, on the other core while the tests
 * run (they took a minute before them). Their output is printed after the tests' when they fail.
 */
async function checks(): Promise<Array<{ name: string; status: number; output: string }>> {
  const bin = (name: string) => join(root, "node_modules/.bin", name);
  const tsc = { name: "type check (tsc --noEmit)", ...(await inBackground(bin("tsc"), ["--noEmit", "-p", root])) };
  const biome = { name: "format and lint (biome check)", ...(await inBackground(bin("biome"), ["check", root])) };
  return [tsc, biome];
}
let checked: ReturnType<typeof checks> | null = null;
if (fullSuite) {
  console.log(
    "test: type check (tsc) and format and lint (biome) run beside the tests; a failure is reported at the end",
  );
  checked = checks();
}

const work = mkdtempSync(join(tmpdir(), "comment-service-test-"));
const unitFiles = files.filter((f) => f.startsWith(join("test", "unit")));
const integrationFiles = files.filter((f) => f.startsWith(join("test", "integration")));
const isLast = (f: string) => basename(f).startsWith("zz-");
const last = integrationFiles.filter(isLast);
/** Files that stop or restart the shared Synapse: nothing else may run beside them. */
const alone = integrationFiles.filter(
  (f) => !isLast(f) && /\b(stop|restart)LocalHomeserver\b/.test(readFileSync(join(root, f), "utf8")),
);
// The longest first (a file's size stands in for its duration), so the lanes end together.
const shared = integrationFiles
  .filter((f) => !isLast(f) && !alone.includes(f))
  .map((f) => ({ f, size: statSync(join(root, f)).size }))
  .sort((a, b) => b.size - a.size)
  .map(({ f }) => f);
const lanes = Math.min(LANES, Math.max(1, shared.length));

if (integrationFiles.length > 0) {
  const registrations = Array.from({ length: lanes }, (_, lane) =>
    writeRegistration(
      buildConfig(testConfigDocument({ registrationFile: join(work, `registration-${lane}.yaml`), lane })),
    ),
  );
  console.log(
    `test: starting a fresh Synapse (instance "${TEST_SYNAPSE_INSTANCE}", port ${TEST_SYNAPSE_PORT}, ${lanes} appservice lane${lanes === 1 ? "" : "s"})`,
  );
  startLocalHomeserver({
    instance: TEST_SYNAPSE_INSTANCE,
    port: TEST_SYNAPSE_PORT,
    serverName: TEST_SERVER_NAME,
    registrationFile: registrations,
    fresh: true,
  });
}

interface FilesRun {
  status: number;
  /** The files with a failing test. */
  failed: string[];
  /** The TAP summary's counts (tests, pass, fail, …). */
  counts: Map<string, number>;
  seconds: number;
}
const reported = { counts: new Map<string, number>(), durations: [] as Array<{ file: string; seconds: number }> };
let runs = 0;

/** Runs test files with node's test runner in a lane; prints their output when they end. */
async function runFiles(list: string[], lane: number, options: { fullSuite: boolean }): Promise<FilesRun> {
  const failedList = join(work, `failed-${++runs}.txt`);
  const begun = Date.now();
  const result = await inBackground(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      "./test/support/contract-hook.ts",
      "--test",
      "--test-concurrency=1",
      "--test-reporter=tap",
      "--test-reporter-destination=stdout",
      "--test-reporter=./test/support/failed-files-reporter.mjs",
      `--test-reporter-destination=${failedList}`,
      ...list,
    ],
    {
      ...process.env,
      TEST_WORK_DIR: work,
      TEST_LANE: String(lane),
      // TEST_FULL_SUITE: the contract coverage test needs every test file to have run.
      ...(options.fullSuite ? { TEST_FULL_SUITE: "1" } : {}),
    },
  );
  const seconds = (Date.now() - begun) / 1000;
  process.stdout.write(
    `# test: ${list.length === 1 ? list[0] : `${list.length} files`} (lane ${lane}, ${seconds.toFixed(1)} s)\n`,
  );
  process.stdout.write(result.output);
  const counts = new Map<string, number>();
  for (const [, name, value] of result.output.matchAll(/^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
    counts.set(name!, Number(value));
  const failed = existsSync(failedList)
    ? readFileSync(failedList, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((file) => relative(root, file))
    : [];
  return { status: result.status, failed, counts, seconds };
}

/** Adds a run's counts and duration to the summary printed at the end. */
function record(run: FilesRun, label: string): FilesRun {
  for (const [name, value] of run.counts) reported.counts.set(name, (reported.counts.get(name) ?? 0) + value);
  reported.durations.push({ file: label, seconds: run.seconds });
  return run;
}

/** The shared files, each lane taking the next one when its last ends. */
async function runLanes(queue: string[]): Promise<FilesRun[]> {
  const results: FilesRun[] = [];
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let file = queue.shift(); file !== undefined; file = queue.shift())
        results.push(record(await runFiles([file], lane, { fullSuite }), file));
    }),
  );
  return results;
}

let status = 0;
try {
  const results: FilesRun[] = [];
  if (unitFiles.length > 0) results.push(record(await runFiles(unitFiles, 0, { fullSuite }), "the unit tests"));
  results.push(...(await runLanes([...shared])));
  for (const file of [...alone, ...last]) results.push(record(await runFiles([file], 0, { fullSuite }), file));

  status = results.find((r) => r.status !== 0)?.status ?? 0;
  // An integration test that fails once runs once more, on its own: the real Synapse, databases
  // and browser make a rare timing failure possible, and one should not hide the rest of the
  // run. A failure again is a failure; a pass is reported as flaky, loudly, with the first
  // run's output above it. Unit tests are not retried, nor a run that failed in no test.
  const failed = results.flatMap((r) => r.failed);
  const retried = failed.filter((file) => file.startsWith(join("test", "integration")) && !isLast(file));
  const failedOutsideTests = results.some((r) => r.status !== 0 && r.failed.length === 0);
  if (
    status !== 0 &&
    !failedOutsideTests &&
    retried.length > 0 &&
    retried.length === failed.length &&
    retried.length <= MAX_RETRIED
  ) {
    console.log(`test: ${retried.join(", ")} failed; running ${retried.length === 1 ? "it" : "them"} once more`);
    const again = await runFiles(retried, 0, { fullSuite: false });
    status = again.status;
    if (status === 0) console.log(`test: FLAKY, failed once and passed when run again: ${retried.join(", ")}`);
  } else if (failed.length > 0) {
    console.log(`test: failing files: ${[...new Set(failed)].join(", ")}`);
  }
} finally {
  if (integrationFiles.length > 0) stopLocalHomeserver(TEST_SYNAPSE_INSTANCE);
  rmSync(work, { recursive: true, force: true });
}

const slowest = reported.durations
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 8)
  .map((d) => `${d.file} ${d.seconds.toFixed(0)} s`);
console.log(`test: slowest: ${slowest.join(", ")}`);
console.log(
  `test: ${[...reported.counts].map(([name, value]) => `${name} ${value}`).join(", ")}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
);
for (const check of checked === null ? [] : await checked) {
  if (check.status === 0) {
    console.log(`test: ${check.name}: passed`);
    continue;
  }
  console.log(`test: ${check.name} FAILED:\n${check.output}`);
  status = status === 0 ? check.status : status;
}
process.exit(status);
