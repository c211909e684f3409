// Loaded into every test process (test/run.ts: --import): every response the service under
// test gives to fetch is checked against openapi/openapi.json, and the exercised operations
// are logged (operationId, status and problem code) for test/integration/zz-contract-coverage.test.ts.
import { appendFileSync } from "node:fs";
import { TEST_SERVICE_PORT } from "./environment.ts";
import { coverageLog, loadContract, type Contract } from "./contract.ts";

const SERVICE_ORIGIN = `http://127.0.0.1:${TEST_SERVICE_PORT}`;
const log = coverageLog();
const originalFetch = globalThis.fetch;
let contract: Contract | null = null;

globalThis.fetch = async function contractFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await originalFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : input);
  if (url.origin !== SERVICE_ORIGIN) return response;
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const errors = await check(method, url.pathname, response);
  if (errors.length > 0) {
    const message = `contract: ${method} ${url.pathname} → ${response.status} does not match openapi/openapi.json (stale? npm run generate):\n  ${errors.join("\n  ")}`;
    // Also fail the test file when a caller swallows the rejection.
    process.exitCode = 1;
    console.error(message);
    throw new Error(message);
  }
  return response;
};

/** " <code>" for a problem response (so the coverage test sees which codes were exercised). */
function problemCode(contentType: string | null, body: string | null): string {
  if (!contentType?.startsWith("application/problem+json") || !body) return "";
  try {
    return ` ${String(JSON.parse(body).code)}`;
  } catch {
    return "";
  }
}

async function check(method: string, pathname: string, response: Response): Promise<string[]> {
  contract ??= loadContract();
  const found = contract.find(method, pathname);
  const contentType = response.headers.get("content-type");
  // A stream never ends by itself: only its status and content type are checked.
  const streaming = contentType?.startsWith("text/event-stream") ?? false;
  const body = streaming ? null : await response.clone().text();
  if ("operation" in found) {
    if (log)
      appendFileSync(log, `${found.operation.operationId} ${response.status}${problemCode(contentType, body)}\n`);
    return contract.check(found.operation, response.status, contentType, body);
  }
  // Paths outside the API (GraphQL, the appservice API) and CORS preflights are not in the document.
  if (method === "OPTIONS" || (found.unknown === "path" && !pathname.startsWith("/api/"))) return [];
  const expected =
    found.unknown === "path" ? { status: 404, code: "not-found" } : { status: 405, code: "method-not-allowed" };
  const errors = contract.check(null, response.status, contentType, body);
  if (response.status !== expected.status) errors.push(`no operation in the document: expected ${expected.status}`);
  else if (errors.length === 0 && JSON.parse(body!).code !== expected.code)
    errors.push(`expected problem code ${expected.code}`);
  return errors;
}
