// A page's live events: text/event-stream read over fetch (not EventSource, which cannot send
// Last-Event-ID on a connection it did not open itself, and which Node 20 lacks), so every
// reconnect resumes after the last event seen. Reconnects back off (1 s doubling to 30 s,
// reset by a connection that delivered something; a 429's Retry-After is honoured).
import { backoffMs, retryAfterMs, sleep, type Http } from "./http.ts";
import type { LiveEvent } from "./types.ts";

export type LiveStatus = "connecting" | "open" | "reconnecting" | "closed";

export interface LiveHandlers {
  onEvent(event: LiveEvent): void;
  onStatus?(status: LiveStatus): void;
}

export class LiveConnection {
  private readonly controller = new AbortController();

  constructor(
    private readonly http: Http,
    private readonly path: string,
    private readonly handlers: LiveHandlers,
    /** The id of the last event received, sent back as Last-Event-ID; given, the stream resumes after it. */
    public lastEventId: string | null = null,
  ) {
    void this.run();
  }

  close(): void {
    this.controller.abort();
    this.handlers.onStatus?.("closed");
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    for (let failures = 0; !signal.aborted; ) {
      this.handlers.onStatus?.(failures === 0 ? "connecting" : "reconnecting");
      let wait: number | null = null;
      try {
        const headers: Record<string, string> = { accept: "text/event-stream" };
        if (this.lastEventId !== null) headers["Last-Event-ID"] = this.lastEventId;
        const res = await this.http.fetch(`${this.http.baseUrl}${this.path}`, { headers, signal, cache: "no-store" });
        if (res.ok && res.body) {
          this.handlers.onStatus?.("open");
          if (await this.read(res.body)) failures = 0;
        } else {
          wait = res.status === 429 ? retryAfterMs(res.headers.get("retry-after")) : null;
          await res.body?.cancel();
        }
      } catch {
        // network failure or close(): the loop condition tells which
      }
      if (signal.aborted) return;
      this.handlers.onStatus?.("reconnecting");
      await sleep(wait ?? backoffMs(1000, failures++), signal).catch(() => {});
    }
  }

  /** Reads events until the stream ends; true when at least one arrived. */
  private async read(body: ReadableStream<Uint8Array>): Promise<boolean> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let received = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return received;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data: string[] = [];
        let id: string | null = null;
        for (const line of block.split("\n")) {
          const colon = line.indexOf(":");
          if (colon === 0) continue; // a comment line: keep-alive
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") data.push(value);
          else if (field === "id") id = value;
        }
        if (id !== null) this.lastEventId = id;
        if (data.length === 0) continue;
        received = true;
        this.handlers.onEvent(JSON.parse(data.join("\n")) as LiveEvent);
      }
    }
  }
}
