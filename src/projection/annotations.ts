// Reaction summaries (pure): what Message.reactions and message_annotations_changed show.

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
    .sort(([keyA, a], [keyB, b]) => (a.first !== b.first ? (a.first < b.first ? -1 : 1) : keyA < keyB ? -1 : keyA > keyB ? 1 : 0))
    .map(([key, { senders }]) => ({ key, count: senders.size, mine: viewerUserId !== null && senders.has(viewerUserId) }));
}
