// The published OpenAPI document (openapi/openapi.json) as the oracle for real responses:
// which operation a request is, and whether a response is one the document declares.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export const OPENAPI_FILE = resolve(import.meta.dirname, "../../openapi/openapi.json");
/** The file every test process appends `operationId status` lines to (test/run.ts sets TEST_WORK_DIR). */
export const coverageLog = (): string | null =>
  process.env.TEST_WORK_DIR ? join(process.env.TEST_WORK_DIR, "contract-coverage.log") : null;

const PROBLEM = "application/problem+json";
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"];

type Json = any;

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  responses: Record<string, Json>;
}

export interface Contract {
  operations: Operation[];
  /** The operation for a request, or why there is none. */
  find(method: string, pathname: string): { operation: Operation } | { unknown: "path" | "method" };
  /** Problems with a response of `operation` (empty when it conforms). */
  check(operation: Operation | null, status: number, contentType: string | null, body: string | null): string[];
}

export function loadContract(file = OPENAPI_FILE): Contract {
  const document = JSON.parse(readFileSync(file, "utf8"));
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      if (item[method])
        operations.push({
          operationId: item[method].operationId,
          method: method.toUpperCase(),
          path,
          responses: item[method].responses ?? {},
        });
    }
  }
  const templates = Object.keys(document.paths ?? {}).map((path) => ({ path, segments: path.split("/") }));

  // Component refs (#/components/schemas/X) point into one registered schema of $defs.
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const rewrite = (schema: Json): Json =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/'));
  ajv.addSchema({ $id: "components", $defs: rewrite(document.components?.schemas ?? {}) });
  const validators = new Map<Json, ValidateFunction>();
  const validator = (schema: Json) => {
    let validate = validators.get(schema);
    if (!validate) validators.set(schema, (validate = ajv.compile(rewrite(schema))));
    return validate;
  };
  const problemSchema = { $ref: "#/components/schemas/Problem" };

  function find(method: string, pathname: string) {
    const parts = pathname.split("/");
    // A literal segment beats a template parameter, as OpenAPI path matching requires.
    const matches = templates
      .filter(
        ({ segments }) =>
          segments.length === parts.length &&
          segments.every((s, i) => (s.startsWith("{") ? parts[i] !== "" : s === parts[i])),
      )
      .sort((a, b) => literals(b.segments) - literals(a.segments));
    if (matches.length === 0) return { unknown: "path" as const };
    const operation = operations.find((o) => o.path === matches[0]!.path && o.method === method);
    return operation ? { operation } : { unknown: "method" as const };
  }

  function check(
    operation: Operation | null,
    status: number,
    contentType: string | null,
    body: string | null,
  ): string[] {
    const mediaType = contentType?.split(";")[0]!.trim().toLowerCase() ?? null;
    // Unknown paths and methods still answer with a problem (../shared/contract.md, Errors).
    let declared: Json = { content: { [PROBLEM]: { schema: problemSchema } } };
    if (operation) {
      declared =
        operation.responses[String(status)] ??
        operation.responses[`${String(status)[0]}XX`] ??
        operation.responses.default;
      if (!declared)
        return [`status ${status} is not declared (declared: ${Object.keys(operation.responses).join(", ")})`];
    }
    if (status >= 400 && mediaType !== PROBLEM)
      return [`an error must be ${PROBLEM}, got ${contentType ?? "no content type"}`];
    const content: Record<string, Json> = declared.content ?? {};
    if (Object.keys(content).length === 0)
      return body ? [`status ${status} declares no content, got ${body.length} bytes of ${contentType}`] : [];
    const media = mediaType === null ? undefined : content[mediaType];
    if (!media)
      return [
        `content type ${contentType ?? "(none)"} is not declared for ${status} (declared: ${Object.keys(content).join(", ")})`,
      ];
    if (!media.schema || body === null) return [];
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`the body is not JSON: ${body.slice(0, 200)}`];
    }
    const errors: string[] = [];
    const validate = validator(media.schema);
    if (!validate(value)) {
      const where = (validate.errors ?? []).map(
        (e) => `${e.instancePath || "(body)"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`,
      );
      errors.push(`the body does not match the ${status} schema: ${where.join("; ")}`);
    }
    const codes: string[] | undefined = declared["x-problem-codes"];
    const code = (value as { code?: unknown } | null)?.code;
    if (codes && !codes.includes(code as string))
      errors.push(`problem code ${JSON.stringify(code)} is not among the ${status} codes (${codes.join(", ")})`);
    return errors;
  }

  return { operations, find, check };
}

const literals = (segments: string[]) => segments.filter((s) => !s.startsWith("{")).length;
