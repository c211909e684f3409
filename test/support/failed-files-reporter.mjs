// A node:test reporter writing the path of each test file with a failing test, once per file
// (test/run.ts runs those once more to tell a flaky test from a broken one). Plain JavaScript:
// the test runner loads reporters before the TypeScript loader is registered.
export default async function* failedFiles(source) {
  const seen = new Set();
  for await (const event of source) {
    if (event.type !== "test:fail") continue;
    const file = event.data.file;
    if (file && !seen.has(file)) {
      seen.add(file);
      yield `${file}\n`;
    }
  }
}
