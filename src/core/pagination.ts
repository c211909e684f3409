// List pagination: `page` 1-1000000 (default 1), `per_page` 1-100 (default 20). These constants
// are the only place the bounds and defaults are written: the JSON Schemas of list bodies, the
// GraphQL arguments and the routes all use them.
import { validationError } from "./errors.ts";

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;
/** Far past any real list; deeper pages would only make the database skip rows. */
export const MAX_PAGE = 1_000_000;
export const DEFAULT_PAGE = 1;

export function checkPagination(page: number, perPage: number): void {
  const errors = [];
  if (!Number.isInteger(page) || page < 1 || page > MAX_PAGE)
    errors.push({ field: "page", message: `must be an integer from 1 to ${MAX_PAGE}` });
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE)
    errors.push({ field: "per_page", message: `must be an integer from 1 to ${MAX_PER_PAGE}` });
  if (errors.length > 0) throw validationError("Invalid pagination.", errors);
}

/**
 * The ranks (1-based, inclusive) a list page covers: 1 is the first comment of the list's order
 * (the oldest for asc, the newest for desc), whatever the list's length.
 */
export function rankWindow(page: number, perPage: number): { first: number; last: number } {
  const skip = (page - 1) * perPage;
  return { first: skip + 1, last: skip + perPage };
}
