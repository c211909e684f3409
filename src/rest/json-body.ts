// Decoding a JSON request body into values the rest of the service can trust: strict UTF-8,
// no unpaired surrogates (escaped `\ud800` is valid JSON but not Unicode text, and would
// fail later in Matrix or the database), finite numbers (1e400 parses as Infinity), and a
// bounded depth.
import { MAX_REQUEST_JSON_DEPTH } from "../config/limits.ts";
import { validationError, type FieldError } from "../core/errors.ts";

const LONE_SURROGATE = /\p{Surrogate}/u;
const LONE_SURROGATES = /\p{Surrogate}/gu;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses a request body; throws a validation-error naming the offending field. */
export function parseJsonBody(raw: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw validationError("The request body is not valid UTF-8.");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw validationError(`The request body is not valid JSON: ${(err as Error).message}`);
  }
  // Only a \u escape can make a lone surrogate (strict UTF-8 cannot encode one): without one, strings need no look.
  const error = findUnacceptable(parsed, text.includes("\\u"));
  if (error) throw validationError("The request body is invalid.", [error]);
  return parsed;
}

/** The first value that is not acceptable input, with its dotted field path ("(body)" for the root); `surrogates` false skips the lone-surrogate look. */
export function findUnacceptable(root: unknown, surrogates = true): FieldError | null {
  // Iterative, so a deep document cannot overflow the stack before the depth check sees it.
  const pending: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  const field = (path: string[]) => (path.length === 0 ? "(body)" : path.join("."));
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { value, path } = item;
    if (typeof value === "string" && surrogates && LONE_SURROGATE.test(value))
      return { field: field(path), message: "is not well-formed Unicode (unpaired surrogate)" };
    if (typeof value === "number" && !Number.isFinite(value)) return { field: field(path), message: "is out of range" };
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= MAX_REQUEST_JSON_DEPTH)
      return { field: field(path), message: `nests deeper than ${MAX_REQUEST_JSON_DEPTH} levels` };
    const entries = Object.entries(value);
    if (surrogates)
      for (const [key] of entries) {
        if (LONE_SURROGATE.test(key))
          return {
            field: field([...path, key.replace(LONE_SURROGATES, "\uFFFD")]),
            message: "has a name that is not well-formed Unicode (unpaired surrogate)",
          };
      }
    // Reversed, so fields are checked in document order.
    for (const [key, child] of entries.reverse()) pending.push({ value: child, path: [...path, key] });
  }
  return null;
}
