// JSON lines as records: each line one object, parsed with its line number for errors.
import { IMPORT_LIMITS } from "../../../config/limits.ts";
import { ImportFileError } from "../records.ts";
import { textLines } from "../source-bytes.ts";

export async function* jsonObjects(
  input: AsyncIterable<Buffer>,
): AsyncGenerator<{ line: number; value: Record<string, unknown> }> {
  for await (const { line, text } of textLines(input, IMPORT_LIMITS.maxRecordBytes)) {
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ImportFileError(line, `not JSON (${(err as Error).message})`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new ImportFileError(line, "not a JSON object");
    yield { line, value: value as Record<string, unknown> };
  }
}

export const str = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
export const obj = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
