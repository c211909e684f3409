// A site's export, streamed from the read model: jsonl (this service's own format, which
// `--from jsonl` imports item for item), or a Disqus XML or WordPress WXR file the importers of
// those formats (this service's included) read. Memory stays bounded: pages and comments are
// read by keyset a batch at a time and written as they are read.
import type { Db } from "../../db/client.ts";
import { ExportStore, type ExportedRow } from "./export-store.ts";
import { HTML_FORMAT } from "../../contract/matrix-vocabulary.ts";

/** What the jsonl export's site line names as its format. */
export const EXPORT_FORMAT_ID = "matrix-comment-service/1";

export const EXPORT_FORMATS = ["jsonl", "disqus", "wordpress"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: "application/jsonl",
  disqus: "application/xml",
  wordpress: "application/rss+xml",
};

/** A comment line of the jsonl export. */
export interface ExportedComment {
  type: "comment";
  page_slug: string;
  id: string;
  reply_to: string | null;
  thread_root: string | null;
  created_at: string;
  edited_at: string | null;
  /** Who wrote it: kind (visitor or matrix), the name shown, and a public id (a visitor's public key, else the Matrix user id). */
  author: { kind: string; name: string | null; id: string };
  /** The latest content as the read API shows it (text, media, poll with its results, location). */
  content: Record<string, unknown>;
  reactions: Array<{ key: string; count: number }>;
  deleted: boolean;
}

function exportedComment(pageSlug: string, row: ExportedRow): ExportedComment {
  const deleted = row.status === "redacted";
  return {
    type: "comment",
    page_slug: pageSlug,
    id: row.eventId,
    reply_to: row.replyTo,
    thread_root: row.threadRoot,
    created_at: new Date(Number(row.originServerTs)).toISOString(),
    edited_at: row.editedAt?.toISOString() ?? null,
    author: {
      kind: row.authorType,
      name: row.displayName,
      id: row.authorType === "visitor" && row.authorPublicKey ? row.authorPublicKey : row.sender,
    },
    content: deleted ? {} : (JSON.parse(row.content) as Record<string, unknown>),
    reactions: row.reactionSummary ? (JSON.parse(row.reactionSummary) as ExportedComment["reactions"]) : [],
    deleted,
  };
}

/** Every page of the site with its comments, in list order. */
export async function* exportedPages(
  db: Db,
  siteId: string,
): AsyncGenerator<{ pageSlug: string; comments: AsyncGenerator<ExportedComment> }> {
  const store = new ExportStore(db);
  for (let after: string | null = null; ; ) {
    const slugs = await store.pageSlugs(siteId, after);
    for (const pageSlug of slugs) {
      async function* comments(): AsyncGenerator<ExportedComment> {
        for (let position = 0; ; ) {
          const rows = await store.comments(siteId, pageSlug, position);
          if (rows.length === 0) return;
          for (const row of rows) yield exportedComment(pageSlug, row);
          position = rows[rows.length - 1]!.position;
        }
      }
      yield { pageSlug, comments: comments() };
    }
    if (slugs.length === 0) return;
    after = slugs[slugs.length - 1]!;
  }
}

const xmlText = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** CDATA that survives a "]]>" in the text. */
const cdata = (text: string) => `<![CDATA[${text.replace(/]]>/g, "]]]]><![CDATA[>")}]]>`;

/** A comment's body as HTML: its Matrix HTML, or its text escaped with line breaks kept. */
function htmlOf(comment: ExportedComment): string {
  const c = comment.content;
  if (c.format === HTML_FORMAT && typeof c.formatted_body === "string") return c.formatted_body;
  const body = typeof c.body === "string" ? c.body : typeof c.fallback === "string" ? c.fallback : "";
  return xmlText(body).replace(/\n/g, "<br>");
}

const parentOf = (comment: ExportedComment) => comment.reply_to ?? comment.thread_root;

/** The export, as text chunks. */
export async function* exportSite(db: Db, siteId: string, format: ExportFormat): AsyncGenerator<string> {
  const exportedAt = new Date().toISOString();
  if (format === "jsonl") {
    yield `${JSON.stringify({ type: "site", site_id: siteId, exported_at: exportedAt, format: EXPORT_FORMAT_ID })}\n`;
    for await (const page of exportedPages(db, siteId)) {
      yield `${JSON.stringify({ type: "page", page_slug: page.pageSlug })}\n`;
      for await (const comment of page.comments) yield `${JSON.stringify(comment)}\n`;
    }
    return;
  }
  if (format === "disqus") {
    yield '<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n';
    for await (const page of exportedPages(db, siteId)) {
      const thread = xmlText(page.pageSlug);
      yield `  <thread dsq:id="${thread}">\n    <id>${thread}</id>\n    <title>${thread}</title>\n    <isDeleted>false</isDeleted>\n  </thread>\n`;
      for await (const c of page.comments) {
        const parent = parentOf(c);
        yield [
          `  <post dsq:id="${xmlText(c.id)}">`,
          `    <message>${cdata(htmlOf(c))}</message>`,
          `    <createdAt>${c.created_at}</createdAt>`,
          `    <isDeleted>${c.deleted}</isDeleted>`,
          "    <isSpam>false</isSpam>",
          `    <author><name>${xmlText(c.author.name ?? "")}</name><isAnonymous>false</isAnonymous><username>${xmlText(c.author.id)}</username></author>`,
          `    <thread dsq:id="${thread}"/>`,
          ...(parent ? [`    <parent dsq:id="${xmlText(parent)}"/>`] : []),
          "  </post>\n",
        ].join("\n");
      }
    }
    yield "</disqus>\n";
    return;
  }
  yield `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:dc="http://purl.org/dc/elements/1.1/">\n<channel>\n  <title>${xmlText(siteId)}</title>\n  <wp:wxr_version>1.2</wp:wxr_version>\n`;
  for await (const page of exportedPages(db, siteId)) {
    const slug = xmlText(page.pageSlug);
    yield `  <item>\n    <title>${slug}</title>\n    <wp:post_id>${slug}</wp:post_id>\n    <wp:post_name>${slug}</wp:post_name>\n    <wp:post_type>post</wp:post_type>\n`;
    for await (const c of page.comments) {
      const date = c.created_at.replace("T", " ").replace(/\.\d+Z$/, "");
      yield [
        "    <wp:comment>",
        `      <wp:comment_id>${xmlText(c.id)}</wp:comment_id>`,
        `      <wp:comment_author>${cdata(c.author.name ?? "")}</wp:comment_author>`,
        `      <wp:comment_user_id>${xmlText(c.author.id)}</wp:comment_user_id>`,
        `      <wp:comment_date_gmt>${date}</wp:comment_date_gmt>`,
        `      <wp:comment_content>${cdata(htmlOf(c))}</wp:comment_content>`,
        `      <wp:comment_approved>${c.deleted ? "trash" : "1"}</wp:comment_approved>`,
        "      <wp:comment_type>comment</wp:comment_type>",
        `      <wp:comment_parent>${xmlText(parentOf(c) ?? "0")}</wp:comment_parent>`,
        "    </wp:comment>\n",
      ].join("\n");
    }
    yield "  </item>\n";
  }
  yield "</channel>\n</rss>\n";
}
