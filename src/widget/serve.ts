// The widget and the SDK as static files of the service, bundled with esbuild once per
// process (at start-up, or on the first request): GET /widget.js (the web component, a
// classic script for the one-tag embed), GET /client.js (the SDK as one ES module), GET /count.js
// (the <matrix-comment-count> element of index pages, a classic script) and
// GET /widget/lang/<code>.json (the widget's languages other than English, fetched by the
// widget when chosen). Each carries an ETag; `?v=<version>` (the content hash, as the demo
// page and the widget use it) makes the response immutable for a year. And the demo page,
// served from its own origin.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

/** What /widget.js may weigh, gzipped (checked by npm run bench:widget and a test). */
export const WIDGET_BUDGET_GZIP_BYTES = 40 * 1024;

export interface Asset {
  body: Uint8Array;
  gzip: Uint8Array;
  /** Content hash: the ETag and the `v` of the immutable URL. */
  version: string;
}

export interface Assets {
  "/widget.js": Asset;
  "/client.js": Asset;
  /** The <matrix-comment-count> element alone (src/widget/count.ts), for index pages. */
  "/count.js": Asset;
  /** /widget/lang/<code>.json, one per language file but English (bundled in the widget). */
  [language: `/widget/lang/${string}.json`]: Asset;
}

const LOCALES_DIR = resolve(import.meta.dirname, "locales");

export const asset = (body: Uint8Array): Asset => ({
  body,
  gzip: gzipSync(body, { level: 9 }),
  version: createHash("sha256").update(body).digest("hex").slice(0, 16),
});

/** The language files, minified, under one version for them all (the `?v=` the widget asks with). */
function languages(): { files: Record<`/widget/lang/${string}.json`, Asset>; version: string } {
  const names = readdirSync(LOCALES_DIR).filter((n) => n.endsWith(".json") && n !== "en.json");
  const bodies = names.sort().map((name) => {
    const parsed: unknown = JSON.parse(readFileSync(resolve(LOCALES_DIR, name), "utf8"));
    return [name, Buffer.from(JSON.stringify(parsed))] as const;
  });
  const all = createHash("sha256");
  for (const [name, body] of bodies) all.update(name).update(body);
  const version = all.digest("hex").slice(0, 16);
  const files: Record<`/widget/lang/${string}.json`, Asset> = {};
  for (const [name, body] of bodies)
    files[`/widget/lang/${name.slice(0, -".json".length)}.json`] = { ...asset(body), version };
  return { files, version };
}

/** Bundles `entry` (relative to this folder) minified: one file, as the service sends it. */
export async function bundle(
  entry: string,
  format: "iife" | "esm",
  define: Record<string, string> = {},
): Promise<Asset> {
  const result = await build({
    entryPoints: [resolve(import.meta.dirname, entry)],
    bundle: true,
    minify: true,
    format,
    target: "es2022",
    platform: "neutral",
    // The SDK's Node-only parts (file key store, worker_threads) are dynamic imports a browser never runs.
    external: ["node:*"],
    legalComments: "none",
    define,
    write: false,
  });
  return asset(result.outputFiles[0]!.contents);
}

let assets: Promise<Assets> | null = null;

/** The bundles, built on first use. */
export function widgetAssets(): Promise<Assets> {
  assets ??= (async () => {
    const { files, version } = languages();
    const [widget, client, count] = await Promise.all([
      bundle("widget.ts", "iife", { LOCALES_VERSION: JSON.stringify(version) }),
      bundle("../client/index.ts", "esm"),
      bundle("count.ts", "iife"),
    ]);
    return { "/widget.js": widget, "/client.js": client, "/count.js": count, ...files };
  })();
  return assets;
}

/**
 * Answers GET/HEAD of /widget.js and /client.js; false for every other request (which the
 * service's REST routing then handles). These are static assets, not API routes.
 */
export async function serveWidgetAssets(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const language = /^\/widget\/lang\/[a-z]{2,3}\.json$/.test(path);
  if (
    (path !== "/widget.js" && path !== "/client.js" && path !== "/count.js" && !language) ||
    (req.method !== "GET" && req.method !== "HEAD")
  )
    return false;
  const asset = (await widgetAssets())[path as keyof Assets];
  if (!asset) return false;
  sendAsset(req, res, asset, {
    "Content-Type": language ? "application/json; charset=utf-8" : "text/javascript; charset=utf-8",
    // Embedding pages are on other origins: module imports need CORS, and no page may be denied the file.
    "Access-Control-Allow-Origin": "*",
    "Cross-Origin-Resource-Policy": "cross-origin",
  });
  return true;
}

/**
 * Sends a static asset: its ETag (304 when it matches), gzipped when the client takes it, and
 * immutable for a year when asked for with `?v=<its version>` (else cached 5 minutes).
 */
export function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset, own: Record<string, string>): void {
  const etag = `"${asset.version}"`;
  const versioned = new URL(req.url ?? "/", "http://x").searchParams.get("v") === asset.version;
  const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  const headers: Record<string, string> = {
    "Cache-Control": versioned ? "public, max-age=31536000, immutable" : "public, max-age=300",
    ETag: etag,
    Vary: "Accept-Encoding",
    "X-Content-Type-Options": "nosniff",
    ...own,
  };
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, headers).end();
    return;
  }
  const body = gzip ? asset.gzip : asset.body;
  res.writeHead(200, {
    "Content-Length": String(body.length),
    ...headers,
    ...(gzip ? { "Content-Encoding": "gzip" } : {}),
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

export interface DemoOptions {
  /** The comment service's base URL (another origin than the demo's). */
  apiUrl: string;
  site: string;
  /** The page shown without ?page= in the demo's URL. */
  page?: string;
  host?: string;
  port?: number;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The widget's attributes the demo takes from its own query (?lang=ar&order=top&depth=2&per-page=10). */
const DEMO_ATTRIBUTES: Record<string, RegExp> = {
  lang: /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/,
  order: /^(?:oldest|newest|top)$/,
  depth: /^\d{1,2}$/,
  "per-page": /^\d{1,3}$/,
};

/** The demo page: an article with the one-tag embed of the widget (versioned URL). */
export function demoPage(options: DemoOptions, version: string, page: string, query = new URLSearchParams()): string {
  const api = escapeHtml(options.apiUrl);
  const attributes = Object.entries(DEMO_ATTRIBUTES)
    .flatMap(([name, valid]) => {
      const value = query.get(name);
      return value !== null && valid.test(value) ? [` ${name}="${escapeHtml(value)}"`] : [];
    })
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Comment service demo</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 760px; margin: 32px auto; padding: 0 16px; color: #1d2330; background: #fff; }
  body.dark { color: #e6e9ef; background: #15181e; }
  body.dark a { color: #7aa2ff; }
</style>
</head>
<body>
<h1>A page with comments</h1>
<p>This demo page is served from its own origin; the widget below comes from the comment service at <a href="${api}/api/v1/openapi.json">${api}</a>
and talks to it cross-origin. Open this page in two tabs and post: the comment arrives in the other tab live.</p>
<p><button type="button" id="theme">Switch light / dark</button> · page <code>${escapeHtml(page)}</code> · <a href="?page=another-page">another page</a></p>
<script src="${api}/widget.js?v=${version}" defer></script>
<matrix-comments site="${escapeHtml(options.site)}" page="${escapeHtml(page)}"${attributes}></matrix-comments>
<script>
  document.getElementById("theme").onclick = () => {
    const widget = document.querySelector("matrix-comments");
    const dark = widget.getAttribute("theme") !== "dark";
    widget.setAttribute("theme", dark ? "dark" : "light");
    document.body.classList.toggle("dark", dark);
  };
</script>
</body>
</html>
`;
}

/** Serves the demo page (any path; ?page=<slug> picks the comment page). */
export async function startDemoServer(options: DemoOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const { "/widget.js": widget } = await widgetAssets();
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? "/", "http://x").searchParams;
    const requested = query.get("page") ?? "";
    const page = /^[a-z0-9-]{1,64}$/.test(requested) ? requested : (options.page ?? "welcome");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
    res.end(demoPage(options, widget.version, page, query));
  });
  const host = options.host ?? "localhost";
  await new Promise<void>((resolve, reject) =>
    server.once("error", reject).listen(options.port ?? 3000, host, resolve),
  );
  return {
    url: `http://${host}:${(server.address() as { port: number }).port}`,
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}
