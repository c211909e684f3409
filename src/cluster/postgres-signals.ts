// Cluster signals over PostgreSQL LISTEN/NOTIFY on a dedicated connection: every instance on
// the database hears every signal within a round trip. Listeners of this instance are called
// at once, in-process; the instance's own notifications are recognised and skipped. Signals
// carry only names (NOTIFY payloads are limited to 8000 bytes): what changed is read from the
// tables. Signals raised in the same tick go out in one statement.
//
// While the connection is down this instance's own signals wait (deduplicated) and go out once
// it is back; the others' it may have missed, so after every reconnect its listeners hear a
// catch-up: live events are read again from the event table, and every known site's pages are
// announced changed, since a missed invalidation would otherwise leave a stale read behind.
import { randomBytes } from "node:crypto";
import { DedicatedConnection } from "./dedicated-connection.ts";
import { LocalSignals, type ClusterSignals, type PageChange } from "./signals.ts";

export const SIGNAL_CHANNEL = "comment_service_signals";
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7900;

type Wire = { o: string; l: 1 } | { o: string; s: string; p: string | null };

export class PostgresSignals implements ClusterSignals {
  /** Names this instance in its own payloads, so it can skip their echo. */
  private readonly origin = randomBytes(8).toString("base64url");
  private readonly local = new LocalSignals();
  private readonly connection: DedicatedConnection;
  /** Payloads not yet sent (deduplicated, so an outage cannot grow it past the pages touched). */
  private readonly outbox = new Set<string>();
  private sending = false;
  private everConnected = false;

  constructor(
    url: string,
    private readonly log: (message: string) => void,
    /** Sites whose pages are announced changed after a reconnect. */
    private readonly knownSites: () => Promise<string[]>,
    retryMs: number,
  ) {
    this.connection = new DedicatedConnection(
      url,
      "cluster signals",
      {
        connected: async (client) => {
          client.on("notification", (n) => n.channel === SIGNAL_CHANNEL && n.payload && this.receive(n.payload));
          await client.query(`LISTEN ${SIGNAL_CHANNEL}`);
          if (this.everConnected) void this.catchUp();
          this.everConnected = true;
          this.flush();
        },
        lost: () => {},
        log,
      },
      retryMs,
    );
  }

  /** Opens the connection (in the background after a failure). */
  start(): Promise<void> {
    return this.connection.open();
  }

  pageChanged(change: PageChange): void {
    this.local.pageChanged(change);
    this.send({ o: this.origin, s: change.siteId, p: change.pageSlug });
  }

  onPageChanged(listener: (change: PageChange) => void): () => void {
    return this.local.onPageChanged(listener);
  }

  liveEventsStored(): void {
    this.local.liveEventsStored();
    this.send({ o: this.origin, l: 1 });
  }

  onLiveEventsStored(listener: () => void): () => void {
    return this.local.onLiveEventsStored(listener);
  }

  async close(): Promise<void> {
    await this.connection.close();
    await this.local.close();
  }

  private send(wire: Wire): void {
    let payload = JSON.stringify(wire);
    // Slugs are short in practice; an oversized one widens to the whole site.
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES && "s" in wire)
      payload = JSON.stringify({ o: this.origin, s: wire.s.slice(0, 512), p: null });
    if (this.outbox.size === 0) queueMicrotask(() => this.flush());
    this.outbox.add(payload);
  }

  /** Sends what waits, one statement at a time; what comes meanwhile goes in the next. */
  private flush(): void {
    const client = this.connection.current;
    if (!client || this.sending || this.outbox.size === 0) return;
    const payloads = [...this.outbox];
    this.outbox.clear();
    this.sending = true;
    client.query("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", [SIGNAL_CHANNEL, payloads]).then(
      () => {
        this.sending = false;
        this.flush();
      },
      (err: Error) => {
        // The connection is being replaced: the signals go out once it is back.
        this.log(`cluster signals: notify failed: ${err.message}`);
        for (const payload of payloads) this.outbox.add(payload);
        this.sending = false;
      },
    );
  }

  private receive(payload: string): void {
    let wire: Wire;
    try {
      wire = JSON.parse(payload) as Wire;
    } catch {
      return;
    }
    if (wire.o === this.origin) return;
    if ("l" in wire) this.local.liveEventsStored();
    else if (typeof wire.s === "string") this.local.pageChanged({ siteId: wire.s, pageSlug: wire.p ?? null });
  }

  private async catchUp(): Promise<void> {
    this.local.liveEventsStored();
    try {
      for (const siteId of await this.knownSites()) this.local.pageChanged({ siteId, pageSlug: null });
    } catch (err) {
      this.log(`cluster signals: catch-up failed: ${(err as Error).message}`);
    }
  }
}
