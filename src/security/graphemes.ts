// Text limits are counted in extended grapheme clusters (UAX #29), as the API promises.

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

// Node 20's segment iterator is quadratic in the input length, so long text is segmented in
// chunks. Each chunk's last cluster may continue into the next chunk, so the next chunk starts
// at that cluster's start: a true boundary, from which segmentation is exact.
const CHUNK = 256;

/** Grapheme clusters in `text`; stops counting once past `stopAfter` (for limit checks). */
export function graphemeCount(text: string, stopAfter = Infinity): number {
  // ASCII: every character is a cluster, except CR LF, which is one (UAX #29 GB3).
  if (!/[^\x00-\x7f]/.test(text)) return text.length - (text.match(/\r\n/g)?.length ?? 0);
  let count = 0;
  let start = 0;
  while (start < text.length && count <= stopAfter) {
    let end = start + CHUNK;
    // Never cut a surrogate pair: a lone half would segment on its own and shift what follows.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
    const chunk = text.slice(start, end);
    if (end >= text.length) {
      for (const _ of segmenter.segment(chunk)) count++;
      return count;
    }
    let clusters = 0;
    let lastStart = 0;
    for (const segment of segmenter.segment(chunk)) {
      clusters++;
      lastStart = segment.index;
    }
    // A single cluster longer than a chunk (stacked combining marks) counts once.
    if (lastStart === 0) {
      count += 1;
      start = end;
    } else {
      count += clusters - 1;
      start += lastStart;
    }
  }
  return count;
}

/** Control characters (Unicode category Cc), which no user-facing short text may contain. */
export const hasControlCharacters = (text: string): boolean => /\p{Cc}/u.test(text);
