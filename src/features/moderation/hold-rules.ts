// Whether a new comment is held for review (pre-moderation), from the setting in force and what
// the comment says (pure). The setting of a page overrides its site's; the site's database
// setting (the setModeration mutation) overrides its [sites.<id>] configuration; else off.
import { HOLD_WORDS_LIMITS } from "../../config/limits.ts";

export const HOLD_MODES = ["off", "all", "first-post", "links"] as const;
export type HoldMode = (typeof HOLD_MODES)[number];

/** Why a comment was held: its mode, or a word of the list. */
export type HoldReason = Exclude<HoldMode, "off"> | "words";

export interface HoldSetting {
  mode: HoldMode;
  /** Held whatever the mode when the comment contains one of these (case-insensitive, whole words). */
  words: string[];
}

export const HOLD_OFF: HoldSetting = { mode: "off", words: [] };

/** What a new comment shows the rules. */
export interface HeldCandidate {
  /** The comment's text (its body, a caption, a poll's question and answers); "" for none. */
  text: string;
  /** True when the author has no comment on the site yet (none projected). */
  firstOnSite: boolean;
}

/** A URL or a bare web address in text: what the links mode holds. */
const LINK = /\b(?:https?:\/\/|www\.)\S|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\/\S*/i;

export const hasLink = (text: string): boolean => LINK.test(text);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The first word of `words` that `text` contains as a whole word (Unicode letters and digits), or null. */
export function heldWord(text: string, words: readonly string[]): string | null {
  for (const word of words) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(word)}(?![\\p{L}\\p{N}])`, "iu");
    if (pattern.test(text)) return word;
  }
  return null;
}

/** Why the comment is held, or null when it goes to Matrix at once. */
export function holdReason(setting: HoldSetting, comment: HeldCandidate): HoldReason | null {
  switch (setting.mode) {
    case "all":
      return "all";
    case "first-post":
      if (comment.firstOnSite) return "first-post";
      break;
    case "links":
      if (hasLink(comment.text)) return "links";
      break;
    case "off":
      break;
  }
  return heldWord(comment.text, setting.words) === null ? null : "words";
}

/** The setting in force on a page: the page's own, else the site's, else the configuration's, else off. */
export function settingInForce(
  page: HoldSetting | null,
  site: HoldSetting | null,
  configured: HoldSetting | null,
): HoldSetting {
  return page ?? site ?? configured ?? HOLD_OFF;
}

/** A word list as given: trimmed, lower-cased, without blanks and repeats; null with the reason when it is not acceptable. */
export function normalizeWords(words: readonly string[]): { words: string[] } | { error: string } {
  const cleaned = [...new Set(words.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 0))];
  if (cleaned.length > HOLD_WORDS_LIMITS.maxWords) return { error: `at most ${HOLD_WORDS_LIMITS.maxWords} words` };
  if (cleaned.some((w) => [...w].length > HOLD_WORDS_LIMITS.maxWordLength))
    return { error: `each word at most ${HOLD_WORDS_LIMITS.maxWordLength} characters` };
  return { words: cleaned };
}
