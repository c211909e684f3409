// Checking a request target's percent-encoding before routing: a segment or query component
// that does not decode (bad escapes, bytes that are not UTF-8, encoded surrogates) is a
// malformed request, not an unknown route. decodeURIComponent refuses all of these, and
// what it returns is always well-formed UTF-16.
import type { FieldError } from "../core/errors.ts";

const decodes = (component: string): boolean => {
  try {
    decodeURIComponent(component);
    return true;
  } catch {
    return false;
  }
};

/** The first badly encoded part of `target` (path plus optional `?query`), or null. */
export function badlyEncodedPart(target: string): FieldError | null {
  const queryStart = target.indexOf("?");
  const path = queryStart < 0 ? target : target.slice(0, queryStart);
  if (!decodes(path)) return { field: "(path)", message: "is not valid percent-encoded UTF-8" };
  if (queryStart < 0) return null;
  for (const pair of target.slice(queryStart + 1).split("&")) {
    const [name = "", value = ""] = pair.replace(/\+/g, " ").split(/=(.*)/s);
    if (!decodes(name) || !decodes(value))
      return { field: decodes(name) ? name : "(query)", message: "is not valid percent-encoded UTF-8" };
  }
  return null;
}
