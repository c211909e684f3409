// The Disqus XML export (https://help.disqus.com/en/articles/1717164-comments-export): <thread>
// elements (the pages) and <post> elements (the comments, each naming its thread and parent by
// dsq:id), in any order.
import { parseTime, SOURCE_NAMES, type SourceRecord } from "../records.ts";
import { child, childText, xmlRecords } from "../xml-records.ts";
import { authorKey } from "./author-key.ts";

const yes = (text: string | null) => text?.toLowerCase() === "true";

export async function* disqusRecords(input: AsyncIterable<Buffer>): AsyncGenerator<SourceRecord> {
  for await (const element of xmlRecords(
    input,
    { root: "disqus", name: SOURCE_NAMES.disqus },
    (name, depth) => depth === 1 && (name === "thread" || name === "post"),
  )) {
    const id = element.attributes["dsq:id"] ?? "";
    if (element.name === "thread") {
      yield {
        kind: "page",
        page: {
          key: id,
          url: childText(element, "link"),
          identifier: childText(element, "id"),
          title: childText(element, "title"),
        },
      };
      continue;
    }
    const author = child(element, "author");
    const anonymous = author ? yes(childText(author, "isAnonymous")) : true;
    const name = author ? childText(author, "name") : null;
    yield {
      kind: "comment",
      comment: {
        id,
        pageKey: child(element, "thread")?.attributes["dsq:id"] ?? "",
        parentId: child(element, "parent")?.attributes["dsq:id"] ?? null,
        authorKey: authorKey("disqus", {
          account: anonymous || !author ? null : childText(author, "username"),
          email: author ? childText(author, "email") : null,
          name,
        }),
        authorName: name ?? "Anonymous",
        createdAt: parseTime(childText(element, "createdAt"), element.line, "<createdAt>"),
        format: "html",
        body: child(element, "message")?.text ?? "",
        skip: yes(childText(element, "isSpam")) ? "spam" : yes(childText(element, "isDeleted")) ? "deleted" : null,
        pinned: false,
      },
    };
  }
}
