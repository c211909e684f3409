// The cached read's path keeps its objects' hidden classes: on Node 20 (V8 11.3) an object
// literal that starts with a spread and then adds a key — `{ ...a, k: v }`, `{ ...a, ...b }` —
// gets a new hidden class on every call (1-6 µs each, against ~0.1 µs for `{ k: v, ...a }` or
// `Object.assign({}, a, b)`); nine such literals cost a cached read ~35 µs of its ~90 µs of CPU
// (docs/benchmarks.md). In the files a request passes through, no literal starts with a spread
// and goes on; elsewhere the cost is too small to weigh against the usual form.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const REQUEST_PATH = [
  "src/app/http-server.ts",
  "src/app/logger.ts",
  "src/app/request-line.ts",
  "src/metrics/request-durations.ts",
  "src/rest/api.ts",
  "src/rest/cached-reads.ts",
  "src/rest/read-bodies.ts",
  "src/rest/read-cache.ts",
  "src/rest/request-body.ts",
  "src/rest/request-target.ts",
  "src/rest/router.ts",
  "src/security/client-ip.ts",
];

/** Where `source` has an object literal that starts with a spread and has more members after it. */
function spreadsThenMore(file: string, source: string): string[] {
  const found: string[] = [];
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (
      ts.isObjectLiteralExpression(node) &&
      node.properties.length > 1 &&
      ts.isSpreadAssignment(node.properties[0]!)
    ) {
      const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}: ${node.getText().replace(/\s+/g, " ").slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

test("the scan finds a literal that starts with a spread and goes on, and passes the forms that keep the class", () => {
  assert.equal(spreadsThenMore("x.ts", "const a = { ...b, c: 1 };").length, 1);
  assert.equal(spreadsThenMore("x.ts", "const a = { ...b, ...c };").length, 1);
  assert.equal(
    spreadsThenMore("x.ts", "const a = { c: 1, ...b }; const d = { ...b }; Object.assign({}, b, c);").length,
    0,
  );
});

test("no literal on the request path starts with a spread and goes on", () => {
  const root = join(import.meta.dirname, "../..");
  const found = REQUEST_PATH.flatMap((file) => spreadsThenMore(file, readFileSync(join(root, file), "utf8")));
  assert.deepEqual(found, []);
});
