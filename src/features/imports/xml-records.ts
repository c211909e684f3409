// Streaming XML (saxes) read as records: the elements a format names (Disqus <thread> and
// <post>, WordPress <item>), each handed over whole as a small tree once it closes, everything
// else passed by. Hostile files are refused, not expanded: a DOCTYPE (where entity
// declarations live) is an error, an undefined entity is an error, an element's text is capped
// (IMPORT_LIMITS) and so is a record's, and a file that ends inside an element is an error
// naming the line.
import { SaxesParser, type SaxesTag } from "saxes";
import { IMPORT_LIMITS } from "../../config/limits.ts";
import { FormatMismatchError, ImportFileError } from "./records.ts";
import { LineCount, StrictDecoder } from "./source-bytes.ts";

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  text: string;
  children: XmlElement[];
  line: number;
}

/** The first child named `name` (a qualified name as written, e.g. "wp:comment_id"). */
export const child = (element: XmlElement, name: string): XmlElement | undefined =>
  element.children.find((c) => c.name === name);

/** The trimmed text of the first child named `name`, or null when it is absent or empty. */
export function childText(element: XmlElement, name: string): string | null {
  const text = child(element, name)?.text.trim();
  return text ? text : null;
}

/** The encoding an XML declaration names (UTF-8 when there is none). */
function declaredEncoding(head: Buffer): string {
  const declaration = /^(?:\uFEFF)?<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head.toString("latin1"));
  return declaration?.[1]?.toLowerCase() ?? "utf-8";
}

/**
 * Yields the elements for which `isRecord(name, depth)` holds (depth 0 is the root), each once
 * it closes, with its descendants. A root element not named `format.root` (its local name), or a
 * file that is not XML before its root, is a FormatMismatchError.
 */
export async function* xmlRecords(
  input: AsyncIterable<Buffer>,
  format: { root: string; name: string },
  isRecord: (name: string, depth: number) => boolean,
): AsyncGenerator<XmlElement> {
  const parser = new SaxesParser({ position: true });
  const lines = new LineCount();
  let decoder: StrictDecoder | null = null;
  const done: XmlElement[] = [];
  /** The open elements of the record being read (empty outside records). */
  const open: XmlElement[] = [];
  let depth = 0;
  let recordBytes = 0;
  let failure: ImportFileError | null = null;
  let rootSeen = false;
  const fail = (reason: string) => {
    failure ??= rootSeen
      ? new ImportFileError(parser.line, reason)
      : new FormatMismatchError(parser.line, `the file is not ${format.name} (not XML: ${reason})`);
    throw failure;
  };
  const addText = (text: string) => {
    const current = open[open.length - 1];
    if (!current) return;
    current.text += text;
    recordBytes += text.length;
    if (current.text.length > IMPORT_LIMITS.maxTextBytes)
      fail(`the text of <${current.name}> is longer than ${IMPORT_LIMITS.maxTextBytes} characters`);
    if (recordBytes > IMPORT_LIMITS.maxRecordBytes)
      fail(`<${open[0]!.name}> (from line ${open[0]!.line}) is longer than ${IMPORT_LIMITS.maxRecordBytes} characters`);
  };
  // A hostile file, whatever format it claims: malformed, not another format.
  parser.on("doctype", () => {
    throw (failure = new ImportFileError(parser.line, "a DOCTYPE is not accepted (entity declarations are refused)"));
  });
  parser.on("error", (err) => fail(err.message.replace(/^\d+:\d+: /, "")));
  parser.on("opentag", (tag: SaxesTag) => {
    if (depth === 0 && !rootSeen) {
      const local = tag.name.slice(tag.name.indexOf(":") + 1);
      if (local !== format.root)
        throw (failure = new FormatMismatchError(
          parser.line,
          `the file is not ${format.name}: its root element is <${tag.name}>, not <${format.root}>`,
        ));
      rootSeen = true;
    }
    if (open.length > 0 || isRecord(tag.name, depth)) {
      const element: XmlElement = {
        name: tag.name,
        attributes: tag.attributes as Record<string, string>,
        text: "",
        children: [],
        line: parser.line,
      };
      open[open.length - 1]?.children.push(element);
      if (open.length === 0) recordBytes = 0;
      open.push(element);
    }
    if (!tag.isSelfClosing) depth++;
    else closeElement();
  });
  const closeElement = () => {
    const element = open.pop();
    if (element && open.length === 0) done.push(element);
  };
  parser.on("closetag", (tag) => {
    if (tag.isSelfClosing) return;
    depth--;
    closeElement();
  });
  parser.on("text", addText);
  parser.on("cdata", addText);

  const write = (text: string) => {
    try {
      parser.write(text);
    } catch (err) {
      throw failure ?? new ImportFileError(parser.line, (err as Error).message);
    }
  };
  for await (const chunk of input) {
    decoder ??= new StrictDecoder(declaredEncoding(chunk), lines);
    write(decoder.decode(chunk));
    yield* done.splice(0);
  }
  if (decoder) write(decoder.decode(null));
  try {
    parser.close();
  } catch (err) {
    throw failure ?? new ImportFileError(parser.line, (err as Error).message);
  }
  if (!decoder) throw new ImportFileError(1, "the file is empty");
  if (!rootSeen) throw new FormatMismatchError(parser.line, `the file is not ${format.name} (it has no root element)`);
  if (depth > 0) fail("the file ends inside an element");
  yield* done.splice(0);
}
