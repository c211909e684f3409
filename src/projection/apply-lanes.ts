// Lanes for applying a transaction's events: one per page (a page's rooms share its list
// positions, count and live stream), each in arrival order, several pages side by side. Applying
// one event waits mostly on database round trips, so pages overlap those waits. One page's events
// write only that page's rows (and the events' own), so the order across pages changes
// nothing; the one row all applying transactions lock is the live events' turn
// (src/sse/live-event-store.ts), so lanes cannot wait on each other in a circle.

/** Groups `items` by `keyOf`, in order of each key's first item, each group in arrival order. */
export function lanesOf<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const lanes = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const lane = lanes.get(key);
    if (lane) lane.push(item);
    else lanes.set(key, [item]);
  }
  return [...lanes.values()];
}

/**
 * Runs every lane's items one after another, up to `width` lanes at a time. A lane stops at its
 * first failure (what follows in it must not overtake it); the others run to their end, and the
 * first failure is thrown once all have settled, so nothing is still running when it returns.
 */
export async function runLanes<T>(
  lanes: readonly T[][],
  width: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const runner = async () => {
    for (let lane = lanes[next++]; lane; lane = lanes[next++]) {
      try {
        for (const item of lane) await work(item);
      } catch (err) {
        failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, lanes.length) }, runner));
  if (failures.length > 0) throw failures[0];
}
