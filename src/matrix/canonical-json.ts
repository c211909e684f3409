// What Matrix's canonical JSON (the form homeservers hash and sign events in) cannot carry:
// a homeserver refuses such an event (M_BAD_JSON), so the service refuses it first.
import { MAX_EVENT_JSON_DEPTH } from "../config/limits.ts";

/** Canonical JSON integers lie within ±(2^53 − 1); it has no other numbers. */
export const MAX_CANONICAL_INTEGER = Number.MAX_SAFE_INTEGER;

/** The first thing in `value` canonical JSON cannot carry: where (dotted path under `field`) and why; null when there is none. */
export function canonicalJsonProblem(value: unknown, field: string): { field: string; message: string } | null {
  // Iterative, so no input is too deep to be checked.
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: field, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value === "number" && !Number.isInteger(value))
      return { field: path, message: "must be an integer: Matrix's canonical JSON has no floats" };
    if (typeof value === "number" && Math.abs(value) > MAX_CANONICAL_INTEGER) {
      return {
        field: path,
        message: `must be an integer within ±${MAX_CANONICAL_INTEGER} (Matrix's canonical JSON range)`,
      };
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_EVENT_JSON_DEPTH)
      return { field: path, message: `nests deeper than ${MAX_EVENT_JSON_DEPTH} levels` };
    for (const [key, item] of Object.entries(value))
      pending.push({ value: item, path: `${path}.${key}`, depth: depth + 1 });
  }
  return null;
}
