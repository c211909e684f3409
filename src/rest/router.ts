// Matching request paths against the route table's templates.
import { MAX_REMEMBERED_ROUTE_MATCHES, MAX_REMEMBERED_ROUTE_PATH_LENGTH } from "../config/limits.ts";
import { setBounded } from "../core/bounded-map.ts";
import type { Method, Route } from "./route.ts";

interface Compiled {
  route: Route;
  /** Its number of segments, and its last segment when that is a literal. */
  length: number;
  end: string | null;
  /** The template's literal segments by position, and its parameters' names by position. */
  literals: Array<[index: number, text: string]>;
  params: Array<[index: number, name: string]>;
}

/** `allowed` lists every method served at the path (for Allow, CORS preflight, Accept-Query). */
export type Match =
  | {
      readonly kind: "route";
      readonly route: Route;
      readonly params: Readonly<Record<string, string>>;
      readonly allowed: readonly Method[];
    }
  | { readonly kind: "method-not-allowed"; readonly allowed: readonly Method[] }
  | { readonly kind: "not-found" };

export class Router {
  /**
   * The templates a path is compared with, by its number of segments and its last segment:
   * those of that length ending in that literal or in a parameter, in table order. Most paths
   * end in a literal (`comments`, `roles`), so a path meets a handful of templates, not every
   * one of its length.
   */
  private readonly byEnd = new Map<string, Compiled[]>();
  /** By number of segments: the templates ending in a parameter (a path whose last segment no template names). */
  private readonly paramEnded = new Map<number, Compiled[]>();
  /**
   * Recent matches by method and path, frozen (callers share them). A match depends on nothing
   * else, and a read's path repeats for every reader of its page. Bounded: the first-stored
   * entry makes room for the next.
   */
  private readonly recent = new Map<string, Match>();

  constructor(routes: Route[]) {
    const all = routes.map((route) => {
      const compiled: Compiled = { route, length: 0, end: null, literals: [], params: [] };
      const segments = route.path.split("/");
      compiled.length = segments.length;
      segments.forEach((segment, i) => {
        if (segment.startsWith("{") && segment.endsWith("}")) compiled.params.push([i, segment.slice(1, -1)]);
        else compiled.literals.push([i, segment]);
      });
      const last = segments.at(-1)!;
      compiled.end = last.startsWith("{") && last.endsWith("}") ? null : last;
      return compiled;
    });
    for (const template of all) {
      if (template.end === null) {
        const same = this.paramEnded.get(template.length) ?? [];
        same.push(template);
        this.paramEnded.set(template.length, same);
        continue;
      }
      const key = endKey(template.length, template.end);
      if (this.byEnd.has(key)) continue;
      this.byEnd.set(
        key,
        all.filter((t) => t.length === template.length && (t.end === null || t.end === template.end)),
      );
    }
  }

  /** `rawPath` is still percent-encoded, so an encoded `/` inside a segment stays inside it. Of several matching templates the last one in table order answers. The answer is frozen. */
  match(method: string, rawPath: string): Match {
    if (rawPath.length > MAX_REMEMBERED_ROUTE_PATH_LENGTH) return this.resolve(method, rawPath);
    const key = `${method} ${rawPath}`;
    const known = this.recent.get(key);
    if (known) return known;
    const found = this.resolve(method, rawPath);
    setBounded(this.recent, key, found, MAX_REMEMBERED_ROUTE_MATCHES);
    return found;
  }

  private resolve(method: string, rawPath: string): Match {
    const parts = rawPath.split("/");
    const candidates =
      this.byEnd.get(endKey(parts.length, parts[parts.length - 1]!)) ?? this.paramEnded.get(parts.length) ?? [];
    const allowed: Method[] = [];
    let found: { route: Route; params: Record<string, string> } | null = null;
    for (const template of candidates) {
      const params = matchTemplate(template, parts);
      if (!params) continue;
      if (template.route.method === method) found = { route: template.route, params };
      allowed.push(template.route.method);
    }
    Object.freeze(allowed);
    if (found)
      return Object.freeze({ kind: "route", route: found.route, params: Object.freeze(found.params), allowed });
    return Object.freeze(allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" });
  }
}

const endKey = (length: number, last: string) => `${length}/${last}`;

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
