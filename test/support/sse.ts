// A minimal SSE reader over fetch, for checking the event stream as a client sees it.
export interface SseMessage {
  id: string | null;
  data: any;
}

export class SseClient {
  readonly messages: SseMessage[] = [];
  private readonly controller = new AbortController();
  private buffer = "";
  status = 0;
  headers: Headers | null = null;
  /** The last `retry:` field the server sent (ms), if any. */
  retry: number | null = null;
  /** The server ended the stream. */
  ended = false;

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const res = await fetch(url, {
      headers: { accept: "text/event-stream", ...headers },
      signal: client.controller.signal,
    });
    client.status = res.status;
    client.headers = res.headers;
    if (res.ok && res.body) void client.pump(res.body);
    return client;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    try {
      for (;;) {
        const { value: chunk, done } = await reader.read();
        if (done) {
          this.ended = true;
          break;
        }
        this.buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf("\n\n")) >= 0) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          let id: string | null = null;
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("id: ")) id = line.slice(4);
            else if (line.startsWith("retry: ")) this.retry = Number(line.slice(7));
            else if (line.startsWith("data: ")) data.push(line.slice(6));
          }
          if (data.length > 0) this.messages.push({ id, data: JSON.parse(data.join("\n")) });
        }
      }
    } catch {
      // aborted
    }
  }

  close(): void {
    this.controller.abort();
  }
}
