// The operator command line (npm run operator): one command per operator route of the route
// table, derived from its entry (method, path, parameters, body schema), so every operator
// route is a command without a list kept by hand; plus `backfill`, which runs here (it reads
// the homeserver and the database, not the service). Table output, or the JSON answer with
// --json; exit codes a script can rely on (OPERATOR_EXIT, docs/cli.md).
import { readFileSync } from "node:fs";
import type { Config } from "../config/config.ts";
import type { JSONSchema } from "../rest/schemas.ts";
import type { BinaryRoute, OperationRoute, Route } from "../rest/route.ts";
import { BACKFILL_EXIT, pageSizeOption, runBackfill, type BackfillRunOptions } from "../features/backfill/run.ts";

/** Exit codes: a refused request's code follows its status. */
export const OPERATOR_EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  unreachable: 3,
  invalid: 4,
  forbidden: 5,
  notFound: 6,
  conflict: 7,
  gone: 8,
  rateLimited: 9,
  otherClientError: 10,
  serverError: 11,
} as const;

export function exitCodeOf(status: number): number {
  const byStatus: Record<number, number> = {
    400: OPERATOR_EXIT.invalid,
    401: OPERATOR_EXIT.forbidden,
    403: OPERATOR_EXIT.forbidden,
    404: OPERATOR_EXIT.notFound,
    409: OPERATOR_EXIT.conflict,
    410: OPERATOR_EXIT.gone,
    429: OPERATOR_EXIT.rateLimited,
  };
  if (status < 400) return OPERATOR_EXIT.ok;
  return byStatus[status] ?? (status < 500 ? OPERATOR_EXIT.otherClientError : OPERATOR_EXIT.serverError);
}

export interface OperatorCommand {
  name: string;
  /** An operation, or a binary route whose answer is written out as it comes (an export). */
  route: OperationRoute | BinaryRoute;
  /** Path parameters, the command's positional arguments, in path order. */
  positional: string[];
  /** Query and body fields, its --options; a raw-body route's --file is the file it uploads. */
  options: Array<{ name: string; in: "query" | "body" | "file"; schema: JSONSchema; required: boolean }>;
}

const kebab = (text: string) => text.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replace(/^-/, "");

/** A command per operator route; the earlier revision's alternate paths of a route are the same command. */
export function operatorCommands(routes: Route[]): OperatorCommand[] {
  return routes
    .filter(
      (route): route is OperationRoute | BinaryRoute =>
        (route.kind === "operation" || route.kind === "binary") &&
        route.auth === "operator" &&
        !route.operationId.endsWith("Alternate"),
    )
    .map((route) => {
      const body = route.body?.schema as { properties?: Record<string, JSONSchema>; required?: string[] } | undefined;
      return {
        name: kebab(route.operationId.replace(/^operator/, "")),
        route,
        positional: [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        options: [
          ...Object.entries(route.query?.properties ?? {}).map(([name, schema]) => ({
            name,
            in: "query" as const,
            schema,
            required: route.query!.required.includes(name),
          })),
          ...Object.entries(body?.properties ?? {}).map(([name, schema]) => ({
            name,
            in: "body" as const,
            schema,
            required: !route.body!.optional && (body?.required ?? []).includes(name),
          })),
          ...(route.rawBody ? [{ name: "file", in: "file" as const, schema: { type: "string" }, required: true }] : []),
        ],
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** `--name value`, `--name=value` and bare `--flag`s; the rest are positional. */
export function parseArguments(
  args: string[],
  flags: ReadonlySet<string>,
): { positional: string[]; options: Map<string, string> } {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (eq >= 0) options.set(name, arg.slice(eq + 1));
    else if (flags.has(name)) options.set(name, "true");
    else if (i + 1 < args.length) options.set(name, args[++i]!);
    else throw new Error(`--${name} needs a value`);
  }
  return { positional, options };
}

/** An option's text as its schema's type: numbers and booleans, JSON for arrays and objects. */
function typed(schema: JSONSchema, text: string): unknown {
  const type = (schema as { type?: unknown }).type;
  if (type === "string") return text;
  if ((type === "integer" || type === "number") && text.trim() !== "" && Number.isFinite(Number(text)))
    return Number(text);
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface OperatorIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Where backfill progress goes. */
  progress: BackfillRunOptions["out"];
}

/** The service's base URL as this configuration serves it (an any-address bind is reached on loopback). */
export function serviceUrl(config: Config): string {
  const host = ["0.0.0.0", "::", ""].includes(config.server.listenHost) ? "127.0.0.1" : config.server.listenHost;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.server.listenPort}`;
}

function help(commands: OperatorCommand[], io: OperatorIo): void {
  io.out(
    "usage: npm run operator -- <command> [arguments] [--options] [--json] [--config FILE] [--service-url URL]\n\ncommands:\n",
  );
  const usage = (c: OperatorCommand) =>
    [
      c.name,
      ...c.positional.map((p) => `<${p}>`),
      ...c.options.map((o) => (o.required ? `--${o.name} …` : `[--${o.name} …]`)),
      ...(c.route.body ? ["[--json-body JSON]"] : []),
    ].join(" ");
  for (const c of commands) io.out(`  ${usage(c)}\n      ${c.route.method} ${c.route.path}: ${c.route.summary}\n`);
  io.out(
    "  backfill [--site <site_id>] [--page-size N]\n      Rebuild the read model from the homeserver (npm run backfill; runs here, not in the service).\n",
  );
  io.out("  help\n      This list.\n");
}

/** Runs one command line; the exit code. */
export async function runOperator(
  args: string[],
  config: Config,
  routes: Route[],
  io: OperatorIo,
  baseUrl = serviceUrl(config),
): Promise<number> {
  const commands = operatorCommands(routes);
  let parsed: ReturnType<typeof parseArguments>;
  try {
    parsed = parseArguments(args, new Set(["json"]));
  } catch (err) {
    io.err(`operator: ${(err as Error).message}\n`);
    return OPERATOR_EXIT.usage;
  }
  const [name, ...positional] = parsed.positional;
  const json = parsed.options.get("json") === "true";
  parsed.options.delete("json");
  if (name === undefined || name === "help") {
    help(commands, io);
    return OPERATOR_EXIT.ok;
  }
  if (name === "backfill") {
    let pageSize: number;
    try {
      const unknown = [...parsed.options.keys()].find((o) => o !== "site" && o !== "page-size");
      if (unknown !== undefined || positional.length > 0)
        throw new Error(unknown ? `unknown option --${unknown}` : "takes no arguments");
      pageSize = pageSizeOption(parsed.options.get("page-size"));
    } catch (err) {
      io.err(`operator: backfill: ${(err as Error).message}\n`);
      return BACKFILL_EXIT.config;
    }
    return runBackfill(config, { siteId: parsed.options.get("site") ?? null, pageSize, out: io.progress });
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`operator: unknown command "${name}" (npm run operator -- help lists them)\n`);
    return OPERATOR_EXIT.usage;
  }
  const problem =
    usageProblem(command, positional, parsed.options) ??
    (config.security.operatorToken === null
      ? "security.operator_token is not set: the operator API is disabled"
      : null);
  if (problem) {
    io.err(`operator: ${command.name}: ${problem}\n`);
    return OPERATOR_EXIT.usage;
  }
  return call(command, positional, parsed.options, config.security.operatorToken!, baseUrl, json, io);
}

function usageProblem(command: OperatorCommand, positional: string[], options: Map<string, string>): string | null {
  if (positional.length !== command.positional.length)
    return `expects ${command.positional.map((p) => `<${p}>`).join(" ") || "no arguments"}`;
  const unknown = [...options.keys()].find(
    (o) => !command.options.some((c) => c.name === o) && !(o === "json-body" && command.route.body),
  );
  if (unknown) return `unknown option --${unknown}`;
  const jsonBody = options.get("json-body");
  if (jsonBody !== undefined && !isJsonObject(jsonBody)) return "--json-body must be a JSON object";
  const missing = command.options.find(
    (o) => o.required && !options.has(o.name) && !(jsonBody !== undefined && o.in === "body"),
  );
  return missing ? `--${missing.name} is required` : null;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

async function call(
  command: OperatorCommand,
  positional: string[],
  options: Map<string, string>,
  token: string,
  baseUrl: string,
  json: boolean,
  io: OperatorIo,
): Promise<number> {
  const { route } = command;
  const path = command.positional.reduce(
    (p, param, i) => p.replace(`{${param}}`, encodeURIComponent(positional[i]!)),
    route.path,
  );
  const query = new URLSearchParams();
  // --json-body: the whole body as JSON (a body schema without plain fields); options add to it.
  const body: Record<string, unknown> = options.has("json-body")
    ? (JSON.parse(options.get("json-body")!) as Record<string, unknown>)
    : {};
  for (const option of command.options) {
    const text = options.get(option.name);
    if (text === undefined) continue;
    if (option.in === "query") query.set(option.name, text);
    else body[option.name] = typed(option.schema, text);
  }
  const sendBody = route.body !== undefined && (!route.body.optional || Object.keys(body).length > 0);
  let file: Buffer | null = null;
  try {
    file = route.rawBody ? readFileSync(options.get("file")!) : null;
  } catch (err) {
    io.err(`operator: ${command.name}: --file cannot be read: ${(err as Error).message}\n`);
    return OPERATOR_EXIT.usage;
  }
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${path}${query.size > 0 ? `?${query}` : ""}`, {
      method: route.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(sendBody ? { "content-type": "application/json" } : {}),
        ...(file ? { "content-type": "application/octet-stream" } : {}),
      },
      body: file ? new Uint8Array(file) : sendBody ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    io.err(
      `operator: the service at ${baseUrl} cannot be reached: ${(err as Error).cause ?? (err as Error).message}\n`,
    );
    return OPERATOR_EXIT.unreachable;
  }
  if (route.kind === "binary" && res.ok && res.body) {
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read())
      io.out(decoder.decode(read.value, { stream: true }));
    io.out(decoder.decode());
    return OPERATOR_EXIT.ok;
  }
  const text = await res.text();
  let answer: unknown = null;
  try {
    answer = text === "" ? null : JSON.parse(text);
  } catch {
    answer = text;
  }
  if (!res.ok) {
    const p = (answer ?? {}) as { code?: string; detail?: string; title?: string };
    if (json) io.out(`${JSON.stringify(answer, null, 2)}\n`);
    io.err(`operator: ${command.name}: ${res.status} ${p.code ?? ""}: ${p.detail ?? p.title ?? text}\n`);
    return exitCodeOf(res.status);
  }
  io.out(json ? `${JSON.stringify(answer, null, 2)}\n` : table(answer, res.status));
  return OPERATOR_EXIT.ok;
}

const cell = (value: unknown): string =>
  value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);

function columns(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}

/** A page of records as rows under their field names; one record as field/value lines. */
export function table(answer: unknown, status: number): string {
  if (answer === null) return `done (${status})\n`;
  if (typeof answer !== "object") return `${cell(answer)}\n`;
  const { data, meta, ...rest } = answer as {
    data?: unknown;
    meta?: { total?: number; page?: number; total_pages?: number };
  };
  if (Array.isArray(data) && Object.keys(rest).length === 0) {
    const keys = [...new Set(data.flatMap((row) => Object.keys(row as object)))];
    const footer = meta ? `page ${meta.page}/${meta.total_pages}, ${meta.total} in all\n` : "";
    if (data.length === 0) return `(none)\n${footer}`;
    return columns([keys, ...data.map((row) => keys.map((k) => cell((row as Record<string, unknown>)[k])))]) + footer;
  }
  return columns(Object.entries(answer).map(([k, v]) => [k, cell(v)]));
}
