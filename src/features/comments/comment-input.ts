// Validation of visitor text fields (lengths in grapheme clusters, as the API promises).
import type { FieldError } from "../../core/errors.ts";
import { graphemeCount, hasControlCharacters } from "../../security/graphemes.ts";
import { isValidEventId } from "../../core/identifiers.ts";
import { geoUriProblem } from "./geo-uri.ts";
import { MAX_DISPLAY_NAME_CODE_POINTS } from "../../matrix/events.ts";

export const MAX_COMMENT_GRAPHEMES = 10_000;
export const MAX_DISPLAY_NAME_GRAPHEMES = 50;
export const MAX_REACTION_KEY_GRAPHEMES = 32;
export const MAX_POLL_QUESTION_GRAPHEMES = 500;
export const MAX_POLL_OPTION_GRAPHEMES = 200;
export const POLL_OPTIONS = { min: 2, max: 20 } as const;
export const MAX_LOCATION_DESCRIPTION_GRAPHEMES = 1_000;

export function checkCommentText(field: string, value: string | null, errors: FieldError[]): void {
  if (value === null) errors.push({ field, message: "is required" });
  else if (value.trim() === "") errors.push({ field, message: "must not be empty" });
  else if (graphemeCount(value, MAX_COMMENT_GRAPHEMES) > MAX_COMMENT_GRAPHEMES) errors.push({ field, message: `must be at most ${MAX_COMMENT_GRAPHEMES} grapheme clusters` });
  else if (hasControlCharacters(value.replace(/[\n\t]/g, ""))) errors.push({ field, message: "must not contain control characters other than newline and tab" });
}

/** A short label: trimmed, 1-max grapheme clusters, no control characters. */
export function checkLabel(field: string, value: string, max: number, errors: FieldError[]): void {
  const count = graphemeCount(value, max);
  if (value.trim() !== value || count < 1 || count > max || hasControlCharacters(value)) {
    errors.push({ field, message: `must be 1-${max} grapheme clusters, without leading or trailing whitespace or control characters` });
  }
}

/**
 * A display name is written to the visitor's Matrix profile after the 202, so it must also fit
 * the homeserver's own cap, counted in code points: 50 clusters of multi-code-point emoji can
 * exceed it.
 */
export function checkDisplayName(value: string | null, errors: FieldError[]): void {
  if (value === null) return;
  checkLabel("display_name", value, MAX_DISPLAY_NAME_GRAPHEMES, errors);
  let codePoints = 0;
  for (const _ of value) codePoints++;
  if (codePoints > MAX_DISPLAY_NAME_CODE_POINTS) {
    errors.push({ field: "display_name", message: `must be at most ${MAX_DISPLAY_NAME_CODE_POINTS} Unicode code points (the homeserver's limit; this one has ${codePoints})` });
  }
}

export function checkEventId(field: string, value: string | null, errors: FieldError[]): void {
  if (value !== null && !isValidEventId(value)) errors.push({ field, message: "must be a Matrix event id ($…)" });
}

/** A reaction key, trimmed by the service; returns the normalized key. */
export function normalizeReactionKey(value: string, errors: FieldError[]): string {
  const key = value.trim();
  checkLabel("key", key, MAX_REACTION_KEY_GRAPHEMES, errors);
  return key;
}

export function checkPoll(question: string, options: string[], maxSelections: number, errors: FieldError[]): void {
  checkLabel("question", question, MAX_POLL_QUESTION_GRAPHEMES, errors);
  if (options.length < POLL_OPTIONS.min || options.length > POLL_OPTIONS.max) {
    errors.push({ field: "options", message: `must have ${POLL_OPTIONS.min}-${POLL_OPTIONS.max} options` });
  }
  options.forEach((option, i) => checkLabel(`options.${i}`, option, MAX_POLL_OPTION_GRAPHEMES, errors));
  if (maxSelections !== 1) errors.push({ field: "max_selections", message: "only 1 is accepted" });
}

export function checkLocation(geoUri: string, description: string | null, errors: FieldError[]): void {
  const problem = geoUriProblem(geoUri);
  if (problem) errors.push({ field: "geo_uri", message: problem });
  if (description !== null) {
    const count = graphemeCount(description, MAX_LOCATION_DESCRIPTION_GRAPHEMES);
    if (description.trim() === "" || count > MAX_LOCATION_DESCRIPTION_GRAPHEMES || hasControlCharacters(description.replace(/\n/g, ""))) {
      errors.push({ field: "description", message: `must be 1-${MAX_LOCATION_DESCRIPTION_GRAPHEMES} grapheme clusters without control characters other than newline` });
    }
  }
}
