// Validation of visitor text fields (lengths in grapheme clusters, as the API promises).
import type { FieldError } from "../../core/errors.ts";
import { graphemeCount, hasControlCharacters } from "../../security/graphemes.ts";
import { isValidEventId } from "../../core/identifiers.ts";
import { geoUriProblem } from "./geo-uri.ts";
import { MAX_DISPLAY_NAME_CODE_POINTS } from "../../matrix/events.ts";
import { HTML_FORMAT } from "../../contract/matrix-vocabulary.ts";
import {
  MAX_COMMENT_GRAPHEMES,
  POLL_OPTIONS,
  MAX_DISPLAY_NAME_GRAPHEMES,
  MAX_REACTION_KEY_GRAPHEMES,
  MAX_POLL_QUESTION_GRAPHEMES,
  MAX_POLL_OPTION_GRAPHEMES,
  MAX_LOCATION_DESCRIPTION_GRAPHEMES,
} from "../../config/limits.ts";

export function checkCommentText(field: string, value: string | null, errors: FieldError[]): void {
  if (value === null) errors.push({ field, message: "is required" });
  else if (value.trim() === "") errors.push({ field, message: "must not be empty" });
  else if (graphemeCount(value, MAX_COMMENT_GRAPHEMES) > MAX_COMMENT_GRAPHEMES)
    errors.push({ field, message: `must be at most ${MAX_COMMENT_GRAPHEMES} grapheme clusters` });
  else if (hasControlCharacters(value.replace(/[\n\t]/g, "")))
    errors.push({ field, message: "must not contain control characters other than newline and tab" });
}

/**
 * A formatted body comes with its format and the plain `body` (the fallback every client shows
 * without HTML); it is not signed, and every reader sanitizes it (the widget: an allowlist of the
 * specification's subset). Its size is bounded by the event's (checkSendable: the homeserver's
 * 64 KiB), so a body and its HTML fit one event together.
 */
export function checkFormattedBody(format: string | null, formattedBody: string | null, errors: FieldError[]): void {
  if (format === null && formattedBody === null) return;
  if (format !== HTML_FORMAT) errors.push({ field: "format", message: `must be "${HTML_FORMAT}" with formatted_body` });
  if (formattedBody === null) errors.push({ field: "formatted_body", message: "is required with format" });
  else if (formattedBody.trim() === "") errors.push({ field: "formatted_body", message: "must not be empty" });
  else if (hasControlCharacters(formattedBody.replace(/[\n\t]/g, "")))
    errors.push({ field: "formatted_body", message: "must not contain control characters other than newline and tab" });
}

/** A short label: trimmed, 1-max grapheme clusters, no control characters. */
export function checkLabel(field: string, value: string, max: number, errors: FieldError[]): void {
  const count = graphemeCount(value, max);
  if (value.trim() !== value || count < 1 || count > max || hasControlCharacters(value)) {
    errors.push({
      field,
      message: `must be 1-${max} grapheme clusters, without leading or trailing whitespace or control characters`,
    });
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
    errors.push({
      field: "display_name",
      message: `must be at most ${MAX_DISPLAY_NAME_CODE_POINTS} Unicode code points (the homeserver's limit; this one has ${codePoints})`,
    });
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
    if (
      description.trim() === "" ||
      count > MAX_LOCATION_DESCRIPTION_GRAPHEMES ||
      hasControlCharacters(description.replace(/\n/g, ""))
    ) {
      errors.push({
        field: "description",
        message: `must be 1-${MAX_LOCATION_DESCRIPTION_GRAPHEMES} grapheme clusters without control characters other than newline`,
      });
    }
  }
}
