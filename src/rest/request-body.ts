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
  return new Promise((resolve) => new BodyReader(req, res, limit, refuse, resolve));
}

/**
 * One body being read. Its listeners are its own methods, bound once: closures made per request
 * each cost a name definition under tsx, on every request the service answers.
 */
class BodyReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private over = false;
  private settled = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly limit: number,
    private readonly refuse: () => Refusal,
    private readonly resolve: (body: Buffer | null) => void,
  ) {
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onGone = this.onGone.bind(this);
    if (Number(req.headers["content-length"]) > limit) {
      this.over = true;
      this.answer();
    }
    req.on("data", this.onData);
    req.once("end", this.onEnd);
    // An aborted upload: the client is gone, so there is no one to answer.
    req.once("error", this.onGone);
    req.once("close", this.onGone);
  }

  private onData(chunk: Buffer): void {
    this.size += chunk.length;
    if (!this.over && this.size > this.limit) {
      this.over = true;
      this.chunks = [];
    }
    if (!this.over) this.chunks.push(chunk);
    else if (this.size > this.limit + DRAIN_CEILING_BYTES) this.settle(null);
  }

  private onEnd(): void {
    this.settle(this.over ? null : Buffer.concat(this.chunks));
  }

  private onGone(): void {
    this.settle(null);
  }

  private settle(body: Buffer | null): void {
    if (this.settled) return;
    this.settled = true;
    this.req.off("data", this.onData);
    this.req.off("error", this.onGone);
    this.req.off("close", this.onGone);
    if (this.over) {
      this.answer();
      this.res.end();
    }
    this.resolve(body);
  }

  /** Writing the whole response without ending it: Node closes a `Connection: close` response's socket as soon as the response ends. */
  private answer(): void {
    if (this.res.headersSent) return;
    const refusal = this.refuse();
    this.res.writeHead(refusal.status, {
      Connection: "close",
      "Content-Length": String(Buffer.byteLength(refusal.body)),
      ...refusal.headers,
    });
    this.res.write(refusal.body);
  }
}
