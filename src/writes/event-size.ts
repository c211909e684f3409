// A 202 promises a sendable submission: an event the homeserver would refuse for its size or
// its JSON is refused here, before anything is queued.
import { validationError } from "../core/errors.ts";
import { canonicalJsonProblem } from "../matrix/canonical-json.ts";
import { EVENT_ENVELOPE_ALLOWANCE, MAX_EVENT_BYTES, eventBytes } from "../matrix/events.ts";
import type { MatrixAction } from "../queue/payloads.ts";
import { EventType } from "../contract/matrix-vocabulary.ts";

/** The most content bytes an event may carry, leaving room for the homeserver's envelope. */
export const MAX_CONTENT_BYTES = MAX_EVENT_BYTES - EVENT_ENVELOPE_ALLOWANCE;

export function checkEventSize(action: MatrixAction): void {
  const type = action.action === "send" ? action.type : EventType.Redaction;
  const bytes = eventBytes(type, action.content);
  if (bytes > MAX_CONTENT_BYTES) {
    throw validationError(
      `The resulting Matrix event would be ${bytes} bytes; the homeserver accepts at most ${MAX_EVENT_BYTES} per event.`,
      [
        {
          field: "content",
          message: `is too large for one Matrix event (the text is stored twice: as the message and in its signed proof block); shorten it`,
        },
      ],
    );
  }
}

/** Everything a homeserver checks of an event's content before it takes it: its size, and its canonical JSON. */
export function checkSendable(action: MatrixAction): void {
  const problem = canonicalJsonProblem(action.content, "content");
  if (problem) throw validationError("The resulting Matrix event would not be valid canonical JSON.", [problem]);
  checkEventSize(action);
}
