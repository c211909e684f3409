// Edits (m.replace, pure): the one place the projection reads replacements. An edit is no
// comment of its own; it changes what the comment it replaces shows.
import { byTimeline, obj, type RoomEvent } from "./room-event.ts";
import { ContentKey, RelType } from "../contract/matrix-vocabulary.ts";

/** Whether the content is an edit (whether or not it names the event it replaces). */
export const isEdit = (content: Record<string, unknown>): boolean =>
  obj(content[ContentKey.RelatesTo])?.rel_type === RelType.Replace;

/**
 * The edit in force: the newest valid replacement. Matrix only honours replacements by the
 * original's sender, of the same event type, without a state key, carrying m.new_content.
 */
export function selectEdit(original: RoomEvent, candidates: RoomEvent[]): RoomEvent | null {
  const valid = candidates.filter(
    (e) =>
      isEdit(e.content) &&
      obj(e.content[ContentKey.RelatesTo])!.event_id === original.event_id &&
      e.sender === original.sender &&
      e.type === original.type &&
      e.state_key === undefined &&
      obj(e.content[ContentKey.NewContent]) !== null,
  );
  return valid.sort(byTimeline).at(-1) ?? null;
}

/** The original as its edit in force shows it. */
export const asEdited = (original: RoomEvent, edit: RoomEvent | null): RoomEvent =>
  edit ? { ...original, content: edit.content[ContentKey.NewContent] as Record<string, unknown> } : original;
