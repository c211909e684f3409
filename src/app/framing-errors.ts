// Requests Node's HTTP parser cannot read (unknown method, invalid bytes in the target or a
// header, conflicting Content-Length, headers over the size limit, a request not received in
// time) never reach a handler. Node would answer them with a bare status line; they get a
// problem document like every other error, then the connection is closed (after a framing
// error the rest of the stream cannot be trusted).
import type { Duplex } from "node:stream";
import { STATUS_CODES } from "node:http";
import { PROBLEM_CONTENT_TYPE, problem } from "../rest/problem.ts";

const FRAMING_PROBLEMS: Record<string, { status: number; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: "request-header-fields-too-large",
    detail: "The request's headers are larger than the service accepts.",
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: "request-timeout", detail: "The request was not received in time." },
  ERR_HTTP_HEADERS_TIMEOUT: {
    status: 408,
    code: "request-timeout",
    detail: "The request's headers were not received in time.",
  },
};
const BAD_REQUEST = {
  status: 400,
  code: "bad-request",
  detail: "The request is not valid HTTP/1.1 (method, target, header bytes or message framing).",
};

/** The http server's `clientError` listener. */
export function answerFramingError(err: Error & { code?: string }, socket: Duplex): void {
  // A response already under way cannot be followed by another; a reset peer reads nothing.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === "ECONNRESET" || !socket.writable || inFlight) {
    socket.destroy();
    return;
  }
  const { status, code, detail } = FRAMING_PROBLEMS[err.code ?? ""] ?? BAD_REQUEST;
  const body = JSON.stringify(problem(code, status, detail));
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  // Destroyed once the answer is flushed.
  socket.end(head + body, () => socket.destroy());
}
