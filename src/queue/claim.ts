// The order of a page's lane (src/queue/submission-store.ts claims its heads in this order).

let lastStamp = 0;

/**
 * The submission time that orders a lane: strictly increasing within this process, so two
 * submissions to one page never tie (the id would then decide, not the order they came in).
 * Taken inside the storing transaction, after its first write: on SQLite that holds the write
 * lock, so stamp order is commit order.
 */
export function submissionStamp(): Date {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return new Date(lastStamp);
}
