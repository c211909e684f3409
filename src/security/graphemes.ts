// Text limits are counted in extended grapheme clusters (UAX #29), as the API promises.

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

export function graphemeCount(text: string): number {
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

/** Control characters (Unicode category Cc), which no user-facing short text may contain. */
export const hasControlCharacters = (text: string): boolean => /\p{Cc}/u.test(text);
