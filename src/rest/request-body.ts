// Reading a request body under a size cap. An oversized body is refused with a response the
// client actually receives: closing a socket that still has unread upload data makes the
// kernel send a reset, which can destroy the response before the client reads it. So the
// rest of the upload is read and discarded, up to a ceiling past which the connection is
// closed (once the response is flushed) rather than read forever.
import type { IncomingMessage, ServerResponse } from "node:http";

/** How much of an oversized body is discarded before the connection is closed instead. */
export const DRAIN_CEILING_BYTES = 8 * 1024 * 1024;

/** The response to an oversized body; sent with `Connection: close`. */
export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The body, or null when there is nothing left to answer: the body was over `limit` (and
 * `refuse()` was sent) or the client went away. A declared Content-Length over the limit is
 * answered at once; a body that grows past it (chunked) is answered when it ends. Either way
 * the response is ended (and the connection closed) only when the upload has ended or the
 * ceiling is reached.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  refuse: () => Refusal,
): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let settled = false;

    // Writing the whole response without ending it: Node closes a `Connection: close`
    // response's socket as soon as the response ends.
    const answer = () => {
      if (res.headersSent) return;
      const refusal = refuse();
      res.writeHead(refusal.status, {
        ...refusal.headers,
        Connection: "close",
        "Content-Length": String(Buffer.byteLength(refusal.body)),
      });
      res.write(refusal.body);
    };
    const settle = (body: Buffer | null) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      if (over) {
        answer();
        res.end();
      }
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!over && size > limit) {
        over = true;
        chunks = [];
      }
      if (!over) chunks.push(chunk);
      else if (size > limit + DRAIN_CEILING_BYTES) settle(null);
    };

    if (Number(req.headers["content-length"]) > limit) {
      over = true;
      answer();
    }
    req.on("data", onData);
    req.once("end", () => settle(over ? null : Buffer.concat(chunks)));
    // An aborted upload: the client is gone, so there is no one to answer.
    req.once("error", () => settle(null));
    req.once("close", () => settle(null));
  });
}
