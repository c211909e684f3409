// Reactions (m.reaction annotations, pure): a reaction's key, and the summaries Message.reactions
// and message_annotations_changed show.
import { obj, str, type RoomEvent } from "./room-event.ts";
import { ContentKey, EventType, RelType } from "../contract/matrix-vocabulary.ts";

/** The key of a reaction (m.annotation), or null when the event is not one. */
export function reactionKey(event: RoomEvent): string | null {
  if (event.type !== EventType.Reaction) return null;
  const rel = obj(event.content[ContentKey.RelatesTo]);
  return rel?.rel_type === RelType.Annotation && typeof rel.event_id === "string" ? str(rel.key) : null;
}

export interface ReactionRow {
  key: string;
  sender: string;
  originServerTs: bigint | number;
}

export interface ReactionSummary {
  key: string;
  count: number;
  mine: boolean;
}

/**
 * Per key, the number of distinct senders; `mine` when the viewer's user is one of them. Keys
 * come in the order of their first reaction, so they keep their place as counts change.
 */
export function reactionSummaries(rows: ReactionRow[], viewerUserId: string | null): ReactionSummary[] {
  const byKey = new Map<string, { first: bigint; senders: Set<string> }>();
  for (const row of rows) {
    const ts = BigInt(row.originServerTs);
    const entry = byKey.get(row.key);
    if (!entry) byKey.set(row.key, { first: ts, senders: new Set([row.sender]) });
    else {
      entry.senders.add(row.sender);
      if (ts < entry.first) entry.first = ts;
    }
  }
  return [...byKey]
    .sort(([keyA, a], [keyB, b]) =>
      a.first !== b.first ? (a.first < b.first ? -1 : 1) : keyA < keyB ? -1 : keyA > keyB ? 1 : 0,
    )
    .map(([key, { senders }]) => ({
      key,
      count: senders.size,
      mine: viewerUserId !== null && senders.has(viewerUserId),
    }));
}

/** A comment's summaries as the read model stores them (Comment.reactionSummary): without `mine`, which is each viewer's own. */
export function storedSummaries(summaries: ReactionSummary[]): string {
  return JSON.stringify(summaries.map(({ key, count }) => ({ key, count })));
}

/** All reactions on a comment: the sum of its summaries' counts (Comment.reactionCount, the "top" order's key). */
export function reactionTotal(summaries: ReactionSummary[]): number {
  return summaries.reduce((sum, s) => sum + s.count, 0);
}

/** Stored summaries as a read shows them: `mine` for the keys the viewer reacted with (null: an anonymous read). */
export function shownSummaries(stored: string, viewerKeys: readonly string[] | null): ReactionSummary[] {
  if (stored === "[]") return [];
  return (JSON.parse(stored) as Array<{ key: string; count: number }>).map(({ key, count }) => ({
    key,
    count,
    mine: viewerKeys !== null && viewerKeys.includes(key),
  }));
}
