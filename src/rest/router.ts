// Matching request paths against the route table's templates.
import type { Method, Route } from "./route.ts";

interface Compiled {
  route: Route;
  /** The template's literal segments by position, and its parameters' names by position. */
  literals: Array<[index: number, text: string]>;
  params: Array<[index: number, name: string]>;
}

/** `allowed` lists every method served at the path (for Allow, CORS preflight, Accept-Query). */
export type Match =
  | { kind: "route"; route: Route; params: Record<string, string>; allowed: Method[] }
  | { kind: "method-not-allowed"; allowed: Method[] }
  | { kind: "not-found" };

export class Router {
  /** Templates by their number of segments, in table order: a path is compared only with those of its length. */
  private readonly byLength = new Map<number, Compiled[]>();

  constructor(routes: Route[]) {
    for (const route of routes) {
      const segments = route.path.split("/");
      const compiled: Compiled = { route, literals: [], params: [] };
      segments.forEach((segment, i) => {
        if (segment.startsWith("{") && segment.endsWith("}")) compiled.params.push([i, segment.slice(1, -1)]);
        else compiled.literals.push([i, segment]);
      });
      const same = this.byLength.get(segments.length) ?? [];
      same.push(compiled);
      this.byLength.set(segments.length, same);
    }
  }

  /** `rawPath` is still percent-encoded, so an encoded `/` inside a segment stays inside it. Of several matching templates the last one in table order answers. */
  match(method: string, rawPath: string): Match {
    const parts = rawPath.split("/");
    const allowed: Method[] = [];
    let found: { route: Route; params: Record<string, string> } | null = null;
    for (const template of this.byLength.get(parts.length) ?? []) {
      const params = matchTemplate(template, parts);
      if (!params) continue;
      if (template.route.method === method) found = { route: template.route, params };
      allowed.push(template.route.method);
    }
    if (found) return { kind: "route", ...found, allowed };
    return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
  }
}

/** The template's parameters if `parts` (a path of the template's length) matches it; literals are compared before anything is decoded. */
function matchTemplate(template: Compiled, parts: string[]): Record<string, string> | null {
  for (const [i, text] of template.literals) if (parts[i] !== text) return null;
  const params: Record<string, string> = {};
  for (const [i, name] of template.params) {
    const part = parts[i]!;
    if (part === "") return null;
    try {
      params[name] = decodeURIComponent(part);
    } catch {
      return null;
    }
  }
  return params;
}
