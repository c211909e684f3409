// Requests Node's parser refuses are answered as problem documents over a real socket.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { answerFramingError } from "../../src/app/framing-errors.ts";

let server: Server;
before(async () => {
  server = createServer((_req, res) => res.end("ok"));
  server.on("clientError", answerFramingError);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
after(() => server.close());

/** What the server sends for `raw` until it closes the connection. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => resolve(received));
    socket.write(raw);
  });
}

function problemOf(response: string, status: number, code: string): void {
  const [head, body] = response.split("\r\n\r\n") as [string, string];
  assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), response);
  assert.match(head, /content-type: application\/problem\+json/i);
  assert.match(head, /connection: close/i);
  const problem = JSON.parse(body);
  assert.deepEqual([problem.status, problem.code, problem.type], [status, code, `urn:comment-service:problem:${code}`]);
}

test("framing errors are problem documents: unknown method, bad target bytes, conflicting Content-Length, oversized headers", async () => {
  problemOf(await exchange("BREW / HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "bad-request");
  problemOf(await exchange("GET /a\x01b HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "bad-request");
  problemOf(
    await exchange("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
    400,
    "bad-request",
  );
  problemOf(
    await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
    431,
    "request-header-fields-too-large",
  );
});
