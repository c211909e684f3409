// Matching request paths against the route table's templates.
import type { Method, Route } from "./route.ts";

interface Compiled {
  route: Route;
  segments: string[];
}

/** `allowed` lists every method served at the path (for Allow, CORS preflight, Accept-Query). */
export type Match =
  | { kind: "route"; route: Route; params: Record<string, string>; allowed: Method[] }
  | { kind: "method-not-allowed"; allowed: Method[] }
  | { kind: "not-found" };

export class Router {
  private readonly compiled: Compiled[];

  constructor(routes: Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split("/") }));
  }

  /** `rawPath` is still percent-encoded, so an encoded `/` inside a segment stays inside it. */
  match(method: string, rawPath: string): Match {
    const parts = rawPath.split("/");
    const allowed: Method[] = [];
    let found: { route: Route; params: Record<string, string> } | null = null;
    for (const { route, segments } of this.compiled) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === method) found = { route, params };
      allowed.push(route.method);
    }
    if (found) return { kind: "route", ...found, allowed };
    return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
  }
}

function matchSegments(template: string[], parts: string[]): Record<string, string> | null {
  if (template.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i]!;
    const p = parts[i]!;
    if (t.startsWith("{") && t.endsWith("}")) {
      if (p === "") return null;
      try {
        params[t.slice(1, -1)] = decodeURIComponent(p);
      } catch {
        return null;
      }
    } else if (t !== p) return null;
  }
  return params;
}
