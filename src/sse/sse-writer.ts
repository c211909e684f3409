// Writing a server-sent event stream (text/event-stream) to an HTTP response.
import type { ServerResponse } from "node:http";

export const KEEP_ALIVE_MS = 15_000;

export class SseWriter {
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly res: ServerResponse, headers: Record<string, string>) {
    res.writeHead(200, {
      ...headers,
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
      Connection: "keep-alive",
    });
    res.write("retry: 3000\n: connected\n\n");
    this.timer = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
  }

  /** One unnamed event; `data` is JSON on a single line. */
  send(id: string, data: unknown): void {
    this.res.write(`id: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  close(): void {
    clearInterval(this.timer);
    if (!this.res.writableEnded) this.res.end();
  }
}
