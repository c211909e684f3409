// Writing a server-sent event stream (text/event-stream) to an HTTP response.
import type { ServerResponse } from "node:http";

export const KEEP_ALIVE_MS = 15_000;

/** Output a client may leave unread before it is dropped (it reconnects with Last-Event-ID). */
export const MAX_UNSENT_BYTES = 1024 * 1024;

export class SseWriter {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string>,
    private readonly maxUnsent = MAX_UNSENT_BYTES,
  ) {
    res.writeHead(200, {
      ...headers,
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
      Connection: "keep-alive",
    });
    this.write("retry: 3000\n: connected\n\n");
    this.timer = setInterval(() => this.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
  }

  /** One unnamed event; `data` is JSON on a single line. */
  send(id: string, data: unknown): void {
    this.write(`id: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  close(): void {
    clearInterval(this.timer);
    if (!this.res.writableEnded) this.res.end();
  }

  /** A client that does not read would otherwise make the response buffer without limit. */
  private write(chunk: string): void {
    if (this.res.destroyed || this.res.writableEnded) return;
    this.res.write(chunk);
    if (this.res.writableLength > this.maxUnsent) this.res.destroy();
  }
}
