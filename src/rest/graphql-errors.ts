// The first error of an in-process GraphQL result, as the route adapter throws it.
import type { ExecutionResult } from "graphql";
import { validationError } from "../core/errors.ts";

/** graphql-js's variable coercion failures: `Variable "$input" got invalid value … at "input.maxSelections"; …`. */
const VARIABLE_ERROR = /^Variable "\$(\w+)"/;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Throws the result's first error: a domain error as itself; a variable the schema cannot coerce
 * (an integer beyond Int, say, that the route's JSON schema let through) as the client's
 * 400 validation-error naming the field, never a 500.
 */
export function throwFirstError(result: ExecutionResult): void {
  const first = result.errors?.[0];
  if (!first) return;
  const variable = VARIABLE_ERROR.exec(first.message);
  if (variable) {
    const path = /at "([^"]+)"/.exec(first.message)?.[1] ?? variable[1]!;
    // An input object's fields are body fields: "input.maxSelections" is max_selections.
    const field = path
      .split(".")
      .slice(path.startsWith("input.") ? 1 : 0)
      .map(snake)
      .join(".");
    throw validationError("A request value is out of range.", [
      { field, message: first.message.replace(/^.*?; /, "") },
    ]);
  }
  throw first.originalError ?? first;
}
