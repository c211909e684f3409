// The service as a real process (`npm start`'s entry point with a test configuration): what
// the crash and fault tests kill and restart.
import { after } from "node:test";
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");
const children = new Set<ChildProcess>();
after(() => children.forEach((c) => c.kill("SIGKILL")));

/** Starts src/cli/start.ts with `configFile` and waits for its listening line; `output` receives everything it prints. */
export async function startProcess(
  configFile: string,
  extra: string[] = [],
  output: (chunk: string) => void = () => {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/start.ts", "--config", configFile, ...extra], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  // What it printed before listening: the error message when it exits instead.
  let printed: string | null = "";
  await new Promise<void>((resolve, reject) => {
    const take = (chunk: Buffer) => {
      output(String(chunk));
      if (printed === null) return;
      printed += chunk;
      if (printed.includes("listening on")) {
        printed = null;
        resolve();
      }
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    child.once("exit", (code) => reject(new Error(`service exited (${code}) before listening:\n${printed}`)));
  });
  return child;
}

/** Sends `signal` and waits for the process to exit. */
export async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
  children.delete(child);
}
