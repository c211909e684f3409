// The Commento export: one JSON object {version, comments: [...], commenters: [...]}, read
// token by token (stream-json) so only one comment or commenter is assembled at a time, each
// string and each record capped (IMPORT_LIMITS). Comments name their commenter by hex id;
// commenters may come after the comments, so names are resolved when the import sends.
import { Readable } from "node:stream";
import { parser } from "stream-json";
import { IMPORT_LIMITS } from "../../../config/limits.ts";
import { FormatMismatchError, ImportFileError, parseTime, SOURCE_NAMES, type SourceRecord } from "../records.ts";
import { str } from "./json-lines.ts";

type Container = Record<string, unknown> | unknown[];

/** The elements of the root object's arrays, each with the array's key, assembled one at a time. */
async function* sectionItems(input: AsyncIterable<Buffer>, lines: { line: number }) {
  async function* counted() {
    for await (const chunk of input) {
      for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines.line++;
      yield chunk;
    }
  }
  const tokens = Readable.from(counted()).pipe(
    parser.asStream({ packKeys: true, streamKeys: false, packNumbers: true, streamNumbers: false, packStrings: false }),
  );
  const stack: Array<{ value: Container; key: string | null }> = [];
  let text: string | null = null;
  let recordBytes = 0;
  let completed: { section: string; value: unknown } | null = null;
  /** Whether the root object has named comments or commenters: what fails before is not a Commento export at all. */
  let hasSection = false;
  const fail = (reason: string) => {
    throw new ImportFileError(lines.line, reason);
  };
  /** Places a finished value in its parent; a finished element of a root array is handed out. */
  const place = (value: unknown) => {
    const parent = stack[stack.length - 1];
    if (!parent) return;
    if (stack.length === 2) {
      completed = { section: stack[0]!.key ?? "", value };
      recordBytes = 0;
    } else if (Array.isArray(parent.value)) parent.value.push(value);
    else parent.value[parent.key!] = value;
  };
  try {
    for await (const token of tokens as AsyncIterable<{ name: string; value?: string }>) {
      switch (token.name) {
        case "startObject":
        case "startArray":
          if (stack.length === 0 && token.name === "startArray")
            throw new FormatMismatchError(lines.line, `the file is not ${SOURCE_NAMES.commento}: it is a JSON array`);
          stack.push({ value: token.name === "startObject" ? {} : [], key: null });
          break;
        case "endObject":
        case "endArray": {
          const done = stack.pop()!;
          if (stack.length === 0 && !hasSection)
            throw new FormatMismatchError(
              lines.line,
              `the file is not ${SOURCE_NAMES.commento}: its object has neither comments nor commenters`,
            );
          place(done.value);
          break;
        }
        case "keyValue":
          if (stack.length === 1 && (token.value === "comments" || token.value === "commenters")) hasSection = true;
          stack[stack.length - 1]!.key = token.value!;
          recordBytes += token.value!.length;
          break;
        case "startString":
          text = "";
          break;
        case "stringChunk":
          text += token.value!;
          recordBytes += token.value!.length;
          if (text!.length > IMPORT_LIMITS.maxTextBytes)
            fail(`a string is longer than ${IMPORT_LIMITS.maxTextBytes} characters`);
          if (recordBytes > IMPORT_LIMITS.maxRecordBytes)
            fail(`a record is longer than ${IMPORT_LIMITS.maxRecordBytes} characters`);
          break;
        case "endString":
          place(text);
          text = null;
          break;
        case "numberValue":
          place(Number(token.value));
          break;
        case "trueValue":
        case "falseValue":
          place(token.name === "trueValue");
          break;
        case "nullValue":
          place(null);
          break;
      }
      if (completed) {
        yield completed;
        completed = null;
      }
    }
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    const reason = `not JSON (${(err as Error).message})`;
    if (!hasSection) throw new FormatMismatchError(lines.line, `the file is not ${SOURCE_NAMES.commento}: ${reason}`);
    throw new ImportFileError(lines.line, reason);
  }
  if (stack.length > 0) fail("the file ends inside the JSON object");
}

export async function* commentoRecords(input: AsyncIterable<Buffer>): AsyncGenerator<SourceRecord> {
  const lines = { line: 1 };
  const pages = new Set<string>();
  for await (const { section, value } of sectionItems(input, lines)) {
    if (typeof value !== "object" || value === null) continue;
    const item = value as Record<string, unknown>;
    if (section === "commenters") {
      const key = str(item.commenterHex);
      if (key !== null)
        yield { kind: "author", author: { key: `commento:account:${key}`, name: str(item.name) ?? "Anonymous" } };
      continue;
    }
    if (section !== "comments") continue;
    const id = str(item.commentHex);
    const path = str(item.url);
    if (id === null || path === null) throw new ImportFileError(lines.line, "a comment needs commentHex and url");
    const domain = str(item.domain);
    const url = domain ? `https://${domain}${path.startsWith("/") ? "" : "/"}${path}` : path;
    if (!pages.has(url)) {
      pages.add(url);
      yield { kind: "page", page: { key: url, url, identifier: path, title: null } };
    }
    const commenter = str(item.commenterHex) ?? "anonymous";
    const parent = str(item.parentHex);
    yield {
      kind: "comment",
      comment: {
        id,
        pageKey: url,
        parentId: parent && parent !== "root" ? parent : null,
        authorKey: `commento:account:${commenter}`,
        authorName: commenter === "anonymous" ? "Anonymous" : null,
        createdAt: parseTime(str(item.creationDate), lines.line, "creationDate"),
        format: item.html ? "html" : "text",
        body: str(item.html) ?? str(item.markdown) ?? "",
        skip:
          item.deleted === true
            ? "deleted"
            : item.state === "flagged"
              ? "spam"
              : item.state === "unapproved"
                ? "pending"
                : null,
        pinned: false,
      },
    };
  }
}
