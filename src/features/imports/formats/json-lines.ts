// JSON lines as records: each line one object, parsed with its line number for errors.
import { IMPORT_LIMITS } from "../../../config/limits.ts";
import { FormatMismatchError, ImportFileError } from "../records.ts";
import { textLines } from "../source-bytes.ts";

/**
 * The objects of a JSON lines file. The first must be what `isFormat` expects of the format's
 * first line: a file whose first line is not JSON, or not such an object, is a
 * FormatMismatchError naming `formatName`; later lines are malformed when they are not JSON.
 */
export async function* jsonObjects(
  input: AsyncIterable<Buffer>,
  formatName: string,
  isFormat: (first: Record<string, unknown>) => boolean,
): AsyncGenerator<{ line: number; value: Record<string, unknown> }> {
  let first = true;
  for await (const { line, text } of textLines(input, IMPORT_LIMITS.maxRecordBytes)) {
    if (text.trim() === "") continue;
    const Refusal = first ? FormatMismatchError : ImportFileError;
    const prefix = first ? `the file is not ${formatName}: its first line is ` : "";
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Refusal(line, `${prefix}not JSON (${(err as Error).message})`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new Refusal(line, `${prefix}not a JSON object`);
    if (first && !isFormat(value as Record<string, unknown>))
      throw new Refusal(line, `${prefix}not one of its records`);
    first = false;
    yield { line, value: value as Record<string, unknown> };
  }
}

export const str = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
export const obj = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
