// This service's own export (jsonl, src/features/imports/export.ts): page lines and comment
// lines. Text comments are imported with their text as exported (plain, or with its Matrix
// HTML); deleted ones are skipped; other kinds (media, polls, locations) are counted as
// unsupported.
import { ImportFileError, parseTime, SOURCE_NAMES, type SourceRecord } from "../records.ts";
import { jsonObjects, obj, str } from "./json-lines.ts";
import { HTML_FORMAT } from "../../../contract/matrix-vocabulary.ts";
import { EXPORT_FORMAT_ID } from "../export.ts";

export async function* serviceJsonlRecords(input: AsyncIterable<Buffer>): AsyncGenerator<SourceRecord> {
  // The export begins with its site line, naming the format.
  const isExport = (first: Record<string, unknown>) => first.type === "site" && first.format === EXPORT_FORMAT_ID;
  for await (const { line, value } of jsonObjects(input, SOURCE_NAMES.jsonl, isExport)) {
    if (value.type === "page") {
      const slug = str(value.page_slug);
      if (slug === null) throw new ImportFileError(line, "a page line needs page_slug");
      yield { kind: "page", page: { key: slug, url: null, identifier: slug, title: str(value.title) } };
    }
    if (value.type !== "comment") continue;
    const id = str(value.id);
    const pageKey = str(value.page_slug);
    if (id === null || pageKey === null) throw new ImportFileError(line, "a comment line needs id and page_slug");
    const author = obj(value.author);
    const content = obj(value.content);
    const html = content.format === HTML_FORMAT ? str(content.formatted_body) : null;
    yield {
      kind: "comment",
      comment: {
        id,
        pageKey,
        parentId: str(value.reply_to) ?? str(value.thread_root),
        authorKey: `jsonl:account:${str(author.id) ?? str(author.name) ?? ""}`,
        authorName: str(author.name) ?? "Anonymous",
        createdAt: parseTime(str(value.created_at), line, "created_at"),
        format: html === null ? "text" : "html",
        body: html ?? str(content.body) ?? "",
        skip: value.deleted === true ? "deleted" : content.type !== "text" ? "unsupported" : null,
        pinned: value.pinned === true,
      },
    };
  }
}
