// One PostgreSQL connection of its own, outside Prisma's pool, for what lives as long as a
// session: LISTEN registrations and session-level advisory locks. When it is lost it is
// opened again after a pause, and its owner is told both ways so it can set up again.
import pg from "pg";

export interface DedicatedConnectionHandlers {
  /** The connection is (again) open: register what the session must hold. Throwing closes it and retries. */
  connected(client: pg.Client): Promise<void>;
  /** The connection is gone: whatever the session held is gone with it. */
  lost(): void;
  log(message: string): void;
}

export class DedicatedConnection {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly what: string,
    private readonly handlers: DedicatedConnectionHandlers,
    private readonly retryMs: number,
  ) {}

  /** The open connection, or null between a loss and the reconnect. */
  get current(): pg.Client | null {
    return this.client;
  }

  /** Connects once; a failure is logged and retried in the background. Resolves either way. */
  async open(): Promise<void> {
    if (this.closed || this.client) return;
    // Keep-alive lets a dead peer surface as an error instead of a connection that hangs on.
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, connectionTimeoutMillis: 10_000 });
    let connected = false;
    client.on("error", (err) => this.drop(client, err));
    client.on("end", () => this.drop(client, null));
    try {
      await client.connect();
      connected = true;
      if (this.closed) throw new Error("closed");
      this.client = client;
      await this.handlers.connected(client);
    } catch (err) {
      if (!this.closed)
        this.handlers.log(`${this.what}: ${connected ? "set-up" : "connect"} failed: ${(err as Error).message}`);
      this.drop(client, null);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private drop(client: pg.Client, err: Error | null): void {
    if (err && !this.closed) this.handlers.log(`${this.what}: connection lost: ${err.message}`);
    const wasCurrent = this.client === client;
    if (wasCurrent) this.client = null;
    client.removeAllListeners("end");
    client.on("error", () => {});
    void client.end().catch(() => {});
    if (this.closed) return;
    if (wasCurrent) this.handlers.lost();
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.open();
      }, this.retryMs);
      this.timer.unref();
    }
  }
}
