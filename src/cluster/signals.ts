// Signals every instance of the service must hear: a page's derived data changed (caches drop
// it), new live events were stored (SSE delivers them). In-process for a single instance
// (SQLite); the PostgreSQL implementation carries them to every instance on the database.

/** A page whose read model changed; pageSlug null means every page of the site (and its site-level reads). */
export interface PageChange {
  siteId: string;
  pageSlug: string | null;
}

export interface ClusterSignals {
  /** Tells every instance, this one included, that a page's derived data changed. */
  pageChanged(change: PageChange): void;
  onPageChanged(listener: (change: PageChange) => void): () => void;
  /** Tells every instance, this one included, that live events were stored. */
  liveEventsStored(): void;
  onLiveEventsStored(listener: () => void): () => void;
  close(): Promise<void>;
}

/** The single-instance implementation: listeners are called in this process. */
export class LocalSignals implements ClusterSignals {
  private readonly pageListeners = new Set<(change: PageChange) => void>();
  private readonly liveListeners = new Set<() => void>();

  pageChanged(change: PageChange): void {
    for (const listener of this.pageListeners) listener(change);
  }

  onPageChanged(listener: (change: PageChange) => void): () => void {
    this.pageListeners.add(listener);
    return () => this.pageListeners.delete(listener);
  }

  liveEventsStored(): void {
    for (const listener of this.liveListeners) listener();
  }

  onLiveEventsStored(listener: () => void): () => void {
    this.liveListeners.add(listener);
    return () => this.liveListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.pageListeners.clear();
    this.liveListeners.clear();
  }
}
