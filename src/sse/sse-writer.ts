// Writing a server-sent event stream (text/event-stream) to an HTTP response.
import type { ServerResponse } from "node:http";

export const KEEP_ALIVE_MS = 15_000;

/** Output a client may leave unread before it is dropped (it reconnects with Last-Event-ID); configured by live.max_unsent_bytes. */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/** One unnamed event; `data` is JSON on a single line. */
export const sseMessage = (id: string, data: unknown): string => `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

export class SseWriter {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string>,
    private readonly maxUnsent = MAX_UNSENT_BYTES,
  ) {
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
      Connection: "keep-alive",
      ...headers,
    });
    this.write("retry: 3000\n: connected\n\n");
    this.timer = setInterval(() => this.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
  }

  /** One unnamed event; `data` is JSON on a single line. */
  send(id: string, data: unknown): void {
    this.write(sseMessage(id, data));
  }

  /** Messages serialized once for many clients. */
  writeRaw(messages: Buffer): void {
    this.write(messages);
  }

  close(): void {
    clearInterval(this.timer);
    if (!this.res.writableEnded) this.res.end();
  }

  /**
   * A client that does not read would otherwise make the response buffer without limit: one
   * whose unsent output (write() backpressure: the response's writableLength) is past the bound
   * when more comes is dropped. A client that keeps up has nothing unsent by then, however
   * large one burst is, so at most the bound plus one burst waits for any client.
   */
  private write(chunk: string | Buffer): void {
    if (this.res.destroyed || this.res.writableEnded) return;
    if (this.res.writableLength > this.maxUnsent) {
      this.res.destroy();
      return;
    }
    this.res.write(chunk);
  }
}
