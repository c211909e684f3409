// What every import format reads into: pages, comments and authors of the source system, in
// the order the file has them (a reply may come before its parent, an author after its comments).

/** The formats `--from` names: the four systems, and this service's own export (jsonl). */
export const IMPORT_SOURCES = ["disqus", "wordpress", "remark42", "commento", "jsonl"] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/** Why a source comment is not imported (each counted in the report). */
export type SkipReason = "deleted" | "spam" | "pending" | "pingback" | "unsupported";

export interface SourcePage {
  /** The page's id in the file (Disqus thread id, WordPress post id, the URL elsewhere). */
  key: string;
  url: string | null;
  /** The source's own page identifier (Disqus <id>), a --map rule may match it. */
  identifier: string | null;
  title: string | null;
}

export interface SourceComment {
  id: string;
  pageKey: string;
  parentId: string | null;
  /** Who wrote it: a key never derived from a readable email (see authorKey), and the name when the comment says it. */
  authorKey: string;
  authorName: string | null;
  /** Milliseconds since the epoch (UTC). */
  createdAt: number;
  /** The body: HTML (reduced to the Matrix subset when sent) or plain text (sent as it is). */
  format: "html" | "text";
  body: string;
  skip: SkipReason | null;
  pinned: boolean;
}

/** An author's name given apart from its comments (Commento's commenters). */
export interface SourceAuthor {
  key: string;
  name: string;
}

export type SourceRecord =
  | { kind: "page"; page: SourcePage }
  | { kind: "comment"; comment: SourceComment }
  | { kind: "author"; author: SourceAuthor };

/** A file that cannot be read as its format: the line it stopped at and why. */
export class ImportFileError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

/** A file whose head (its root element, its first record) is not the format `--from` names. */
export class FormatMismatchError extends ImportFileError {}

/** The formats as people name them, for the messages. */
export const SOURCE_NAMES: Record<ImportSource, string> = {
  disqus: "a Disqus export",
  wordpress: "a WordPress WXR export",
  remark42: "a Remark42 backup",
  commento: "a Commento export",
  jsonl: "this service's jsonl export",
};

/** A date the file gives, as milliseconds since the epoch; an error naming the line when it is none. */
export function parseTime(text: string | null, line: number, what: string): number {
  const ms = text === null ? Number.NaN : Date.parse(text);
  if (!Number.isFinite(ms)) throw new ImportFileError(line, `${what} ${JSON.stringify(text)} is not a date`);
  return ms;
}
