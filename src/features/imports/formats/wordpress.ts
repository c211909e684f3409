// WordPress eXtended RSS (WXR 1.0, 1.1 and 1.2): <item> elements (posts and pages) with their
// <wp:comment> children. Elements are matched by local name, whatever prefix the file binds to
// the wp namespace (its URI names the WXR version).
import { ImportFileError, parseTime, SOURCE_NAMES, type SkipReason, type SourceRecord } from "../records.ts";
import type { XmlElement } from "../xml-records.ts";
import { xmlRecords } from "../xml-records.ts";
import { authorKey } from "./author-key.ts";

const local = (name: string) => name.slice(name.indexOf(":") + 1);
const text = (element: XmlElement, name: string): string | null => {
  const value = element.children.find((c) => local(c.name) === name)?.text.trim();
  return value ? value : null;
};

/** comment_approved: "1" approved, "0" pending, "spam", "trash"; pingbacks and trackbacks are not comments. */
function skipOf(comment: XmlElement): SkipReason | null {
  const type = text(comment, "comment_type");
  if (type === "pingback" || type === "trackback") return "pingback";
  const approved = text(comment, "comment_approved");
  if (approved === "spam") return "spam";
  if (approved === "trash" || approved === "post-trashed") return "deleted";
  return approved === "1" || approved === "approve" ? null : "pending";
}

/** comment_date_gmt ("YYYY-MM-DD HH:MM:SS", UTC); WordPress writes zeros for some drafts, then the local comment_date stands in. */
function commentTime(comment: XmlElement): number {
  const gmt = text(comment, "comment_date_gmt");
  const given = gmt && !gmt.startsWith("0000") ? gmt : text(comment, "comment_date");
  if (given === null) throw new ImportFileError(comment.line, "<wp:comment> has no comment_date_gmt");
  return parseTime(`${given.replace(" ", "T")}Z`, comment.line, "comment_date_gmt");
}

/** Block elements WordPress (wpautop) does not wrap in a paragraph. */
const BLOCK_START = /^<(p|div|blockquote|pre|ul|ol|table|h[1-6]|hr)[\s>/]/i;

/**
 * WordPress stores comments as text with inline HTML and shows them with paragraphs made of
 * blank lines; a chunk that is already a block (this service's export writes its HTML so) is kept
 * as it is, since a <p> around a <p> would become empty paragraphs.
 */
export function paragraphs(body: string): string {
  return body
    .trim()
    .split(/\r?\n\s*\r?\n/)
    .map((paragraph) => (BLOCK_START.test(paragraph) ? paragraph : `<p>${paragraph.replace(/\r?\n/g, "<br>")}</p>`))
    .join("");
}

export async function* wordpressRecords(input: AsyncIterable<Buffer>): AsyncGenerator<SourceRecord> {
  for await (const item of xmlRecords(
    input,
    { root: "rss", name: SOURCE_NAMES.wordpress },
    (name, depth) => depth === 2 && name === "item",
  )) {
    const key = text(item, "post_id");
    if (key === null) continue;
    yield {
      kind: "page",
      page: { key, url: text(item, "link"), identifier: text(item, "post_name"), title: text(item, "title") },
    };
    for (const comment of item.children.filter((c) => local(c.name) === "comment")) {
      const parent = text(comment, "comment_parent");
      const name = text(comment, "comment_author");
      const user = text(comment, "comment_user_id");
      yield {
        kind: "comment",
        comment: {
          id: text(comment, "comment_id") ?? "",
          pageKey: key,
          parentId: parent && parent !== "0" ? parent : null,
          authorKey: authorKey("wordpress", {
            account: user && user !== "0" ? user : null,
            email: text(comment, "comment_author_email"),
            name,
          }),
          authorName: name ?? "Anonymous",
          createdAt: commentTime(comment),
          format: "html",
          body: paragraphs(text(comment, "comment_content") ?? ""),
          skip: skipOf(comment),
          pinned: false,
        },
      };
    }
  }
}
