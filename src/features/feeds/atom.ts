// Atom 1.0 documents (RFC 4287) of comments, pure: the text of every element is escaped, and
// characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF)
// are dropped, so hostile comment text can neither break nor inject markup.

export interface FeedEntry {
  /** A permanent IRI (the comment's URN). */
  id: string;
  title: string;
  authorName: string;
  published: Date;
  updated: Date;
  text: string;
  /** The comment on its page (the site's page URL pattern); null: unknown. */
  link: string | null;
}

export interface Feed {
  id: string;
  title: string;
  updated: Date;
  /** The feed's own address (rel="self"); null: unknown. */
  self: string | null;
  /** Newest first. */
  entries: FeedEntry[];
}

// Tab, line feed and carriage return are the only C0 controls XML 1.0 allows.
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SPECIAL: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Text as XML character data or an attribute value: special characters escaped, impossible ones dropped. */
export const escapeXml = (text: string): string => text.replace(NOT_XML, "").replace(/[&<>"']/g, (c) => SPECIAL[c]!);

const element = (name: string, text: string) => `<${name}>${escapeXml(text)}</${name}>`;

export function atomDocument(feed: Feed): string {
  const lines = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    element("id", feed.id),
    element("title", feed.title),
    element("updated", feed.updated.toISOString()),
    ...(feed.self === null ? [] : [`<link rel="self" type="application/atom+xml" href="${escapeXml(feed.self)}"/>`]),
    "<generator>matrix comment service</generator>",
  ];
  for (const entry of feed.entries) {
    lines.push(
      "<entry>",
      element("id", entry.id),
      element("title", entry.title),
      element("published", entry.published.toISOString()),
      element("updated", entry.updated.toISOString()),
      `<author>${element("name", entry.authorName)}</author>`,
      ...(entry.link === null ? [] : [`<link rel="alternate" type="text/html" href="${escapeXml(entry.link)}"/>`]),
      `<content type="text">${escapeXml(entry.text)}</content>`,
      "</entry>",
    );
  }
  lines.push("</feed>", "");
  return lines.join("\n");
}

/** What an entry says for a comment's typed content (the read API's `content`). */
export function contentText(content: Record<string, unknown>): string {
  const str = (value: unknown) => (typeof value === "string" ? value : "");
  switch (content.type) {
    case "text":
      return str(content.body);
    case "media":
      return `[${str(content.kind) || "media"}] ${str(content.body) || str(content.filename)}`.trim();
    case "location":
      return `[location] ${str(content.description) || str(content.geo_uri)}`.trim();
    case "poll":
      return `[poll] ${str(content.question)}`;
    default:
      return `[${str(content.type) || "comment"}]`;
  }
}

/** The first line of a text, at most `max` characters (an entry's title). */
export function headline(text: string, max = 80): string {
  const line = [...text.split("\n", 1)[0]!.trim()];
  return line.length <= max ? line.join("") : `${line.slice(0, max - 1).join("")}…`;
}
