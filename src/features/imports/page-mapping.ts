// Which page (page_slug) a source page's comments go to: the first --map rule whose regular
// expression matches the page's URL (or else its identifier) gives the slug by its replacement;
// without a matching rule, the URL's path does. Either is then made a valid slug.
import { createHash } from "node:crypto";
import { isValidPageSlug } from "../../core/identifiers.ts";
import type { SourcePage } from "./records.ts";

export interface MapRule {
  pattern: RegExp;
  replacement: string;
}

/** A --map rule, written `REGEX=>REPLACEMENT` (`$1`… name the groups). */
export function parseMapRule(text: string): MapRule {
  const at = text.indexOf("=>");
  if (at === -1) throw new Error(`--map ${JSON.stringify(text)}: write it as REGEX=>REPLACEMENT`);
  try {
    return { pattern: new RegExp(text.slice(0, at)), replacement: text.slice(at + 2) };
  } catch (err) {
    throw new Error(`--map ${JSON.stringify(text)}: ${(err as Error).message}`);
  }
}

/** Text made a page slug: lower case, runs of anything but [a-z0-9] a dash, at most 64 (a long one ends in a digest). */
export function slugOf(text: string): string | null {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (slug === "") return null;
  if (slug.length <= 64) return slug;
  const digest = createHash("sha256").update(slug).digest("hex").slice(0, 8);
  return `${slug.slice(0, 55).replace(/-+$/, "")}-${digest}`;
}

/** The path of a URL (or the text itself when it is none); "/" is the page "index". */
function pathOf(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  return path.replace(/^\/+|\/+$/g, "") || "index";
}

/** The page slug of a source page, or null when nothing gives one. */
export function pageSlugOf(page: SourcePage, rules: readonly MapRule[]): string | null {
  for (const subject of [page.url, page.identifier]) {
    if (subject === null) continue;
    for (const rule of rules) {
      if (rule.pattern.test(subject)) return slugOf(subject.replace(rule.pattern, rule.replacement));
    }
  }
  const given = page.url ?? page.identifier;
  if (given === null) return null;
  // A slug as given (the service's own export) stays as it is.
  return isValidPageSlug(given) ? given : slugOf(pathOf(given));
}
