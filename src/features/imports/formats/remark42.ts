// The Remark42 backup: JSON lines, the first a metadata object ({version, users, posts}), then
// one comment a line ({id, pid, text (HTML), user {id, name}, locator {url}, time, delete, pin}).
import { ImportFileError, parseTime, SOURCE_NAMES, type SourceRecord } from "../records.ts";
import { jsonObjects, obj, str } from "./json-lines.ts";

export async function* remark42Records(input: AsyncIterable<Buffer>): AsyncGenerator<SourceRecord> {
  const pages = new Set<string>();
  // The first line: the metadata object, or (a backup without one) a comment.
  const isRemark42 = (first: Record<string, unknown>) =>
    ("version" in first && !("type" in first)) || (str(first.id) !== null && str(obj(first.locator).url) !== null);
  for await (const { line, value } of jsonObjects(input, SOURCE_NAMES.remark42, isRemark42)) {
    if (line === 1 && "version" in value && !("locator" in value)) continue;
    const id = str(value.id);
    const url = str(obj(value.locator).url);
    if (id === null || url === null) throw new ImportFileError(line, "a comment needs id and locator.url");
    // Pages are known by their URL; each is announced once, before its first comment.
    if (!pages.has(url)) {
      pages.add(url);
      yield { kind: "page", page: { key: url, url, identifier: null, title: str(value.title) } };
    }
    const user = obj(value.user);
    yield {
      kind: "comment",
      comment: {
        id,
        pageKey: url,
        parentId: str(value.pid),
        authorKey: `remark42:account:${str(user.id) ?? str(user.name) ?? ""}`,
        authorName: str(user.name) ?? "Anonymous",
        createdAt: parseTime(str(value.time), line, "time"),
        format: "html",
        body: str(value.text) ?? "",
        skip: value.delete === true ? "deleted" : null,
        pinned: value.pin === true,
      },
    };
  }
}
