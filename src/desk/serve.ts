// The desk (the moderation dashboard) as static files of the service, built once per process
// like the widget: GET /admin (the page), /admin/desk.js (the Preact app, bundled with esbuild)
// and /admin/desk.css. The page loads both by their immutable `?v=` URLs and runs under a strict
// CSP: scripts and styles from the service only (no inline script or style), and connections to
// the service and to the homeservers whose users may sign in (dashboard.openid_homeservers),
// which the desk logs in to for the OpenID token.
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { resolve } from "node:path";
import { asset, bundle, sendAsset, type Asset } from "../widget/serve.ts";

/** What /admin/desk.js may weigh, gzipped (checked by npm run bench:widget and the desk's test). */
export const DESK_BUDGET_GZIP_BYTES = 120 * 1024;

export interface DeskHomeserver {
  /** The server name a user id ends with. */
  name: string;
  /** Where its client-server API is. */
  url: string;
}

export interface DeskAssets {
  "/admin/desk.js": Asset;
  "/admin/desk.css": Asset;
}

let assets: Promise<DeskAssets> | null = null;

export function deskAssets(): Promise<DeskAssets> {
  assets ??= (async () => ({
    "/admin/desk.js": await bundle("../desk/app.ts", "iife"),
    "/admin/desk.css": asset(readFileSync(resolve(import.meta.dirname, "desk.css"))),
  }))();
  return assets;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The Content-Security-Policy of /admin: nothing inline, nothing from elsewhere but the homeservers' APIs. */
export function deskPolicy(homeservers: readonly DeskHomeserver[]): string {
  const origins = [...new Set(homeservers.map((hs) => new URL(hs.url).origin))].join(" ");
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${origins}`.trim(),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function page(assets: DeskAssets, homeservers: readonly DeskHomeserver[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>Comment desk</title>
<link rel="stylesheet" href="/admin/desk.css?v=${assets["/admin/desk.css"].version}">
<script src="/admin/desk.js?v=${assets["/admin/desk.js"].version}" defer></script>
</head>
<body>
<div id="desk" data-homeservers="${escapeHtml(JSON.stringify(homeservers))}"></div>
</body>
</html>
`;
}

/** Answers GET/HEAD of /admin and its two files; false for every other request. */
export async function serveDesk(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  homeservers: readonly DeskHomeserver[],
): Promise<boolean> {
  if (!/^\/admin(?:\/(?:desk\.js|desk\.css)?)?$/.test(path) || (req.method !== "GET" && req.method !== "HEAD"))
    return false;
  const files = await deskAssets();
  const common = {
    "Content-Security-Policy": deskPolicy(homeservers),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
  };
  if (path === "/admin/desk.js" || path === "/admin/desk.css") {
    sendAsset(req, res, files[path], {
      "Content-Type": path.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
      ...common,
    });
    return true;
  }
  const body = Buffer.from(page(files, homeservers));
  res.writeHead(200, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Length": String(body.length),
    // The page names the files' current versions: always asked for again.
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    ...common,
  });
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}
