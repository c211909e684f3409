// Validation of comment text fields (lengths in grapheme clusters, as the API promises).
import type { FieldError } from "./errors.ts";
import { graphemeCount, hasControlCharacters } from "../security/graphemes.ts";
import { isValidEventId } from "./identifiers.ts";

export const MAX_COMMENT_GRAPHEMES = 10_000;
export const MAX_DISPLAY_NAME_GRAPHEMES = 50;

export function checkCommentText(field: string, value: string, errors: FieldError[]): void {
  if (value.trim() === "") errors.push({ field, message: "must not be empty" });
  else if (graphemeCount(value, MAX_COMMENT_GRAPHEMES) > MAX_COMMENT_GRAPHEMES) errors.push({ field, message: `must be at most ${MAX_COMMENT_GRAPHEMES} grapheme clusters` });
  else if (/[\p{Cc}]/u.test(value.replace(/[\n\t]/g, ""))) errors.push({ field, message: "must not contain control characters other than newline and tab" });
}

export function checkDisplayName(value: string | null, errors: FieldError[]): void {
  if (value === null) return;
  const count = graphemeCount(value, MAX_DISPLAY_NAME_GRAPHEMES);
  if (value.trim() !== value || count < 1 || count > MAX_DISPLAY_NAME_GRAPHEMES || hasControlCharacters(value)) {
    errors.push({ field: "display_name", message: `must be 1-${MAX_DISPLAY_NAME_GRAPHEMES} grapheme clusters, trimmed, without control characters` });
  }
}

export function checkEventId(field: string, value: string | null, errors: FieldError[]): void {
  if (value !== null && !isValidEventId(value)) errors.push({ field, message: "must be a Matrix event id ($…)" });
}
