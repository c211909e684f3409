// The local Synapse used by `npm start` (dev) and the test suite, managed by
// scripts/synapse.sh (a Debian sid chroot cached outside the checkout).
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

const SCRIPT = resolve(import.meta.dirname, "../../scripts/synapse.sh");

export interface LocalHomeserverOptions {
  instance: string;
  port: number;
  serverName: string;
  /** The appservice registration, or several (one appservice each: the test suite's lanes). */
  registrationFile: string | readonly string[];
  /** Wipe the instance first (tests start from an empty homeserver). */
  fresh?: boolean;
}

/** Runs a script command; its progress output is shown only when it fails. */
function run(command: string, env: Record<string, string>): string {
  try {
    return execFileSync("bash", [SCRIPT, command], {
      env: { ...process.env, ...env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 16 * 1024 * 1024,
    }).trim();
  } catch (err) {
    const { stderr, stdout } = err as { stderr?: string; stdout?: string };
    throw new Error(`scripts/synapse.sh ${command} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

/** Provisions (first time: about a minute) and starts Synapse; returns its base URL. */
export function startLocalHomeserver(options: LocalHomeserverOptions): string {
  run("start", {
    SYNAPSE_INSTANCE: options.instance,
    SYNAPSE_PORT: String(options.port),
    SYNAPSE_SERVER_NAME: options.serverName,
    SYNAPSE_REGISTRATION:
      typeof options.registrationFile === "string" ? options.registrationFile : options.registrationFile.join(":"),
    ...(options.fresh ? { SYNAPSE_FRESH: "1" } : {}),
  });
  return `http://127.0.0.1:${options.port}`;
}

export function stopLocalHomeserver(instance: string): void {
  run("stop", { SYNAPSE_INSTANCE: instance });
}

export function registrationSharedSecret(instance: string): string {
  return run("registration-secret", { SYNAPSE_INSTANCE: instance });
}

/** Stops and starts the instance, keeping its data and registration. */
export function restartLocalHomeserver(instance: string, port: number): void {
  run("restart", { SYNAPSE_INSTANCE: instance, SYNAPSE_PORT: String(port) });
}
