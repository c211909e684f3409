// The read cache: serialized bodies of public reads, keyed by the read's inputs (route,
// variables, the request's base URL), so a read nothing changed costs a lookup and a socket
// write. Entries are dropped when the projection signals that their page (or site) changed, on
// every instance (src/cluster/signals.ts), and expire at the next whole minute (bodies may carry
// URLs whose expiry is bucketed to whole minutes). Bounded by entries and bytes, least recently
// used first out.
import type { ClusterSignals, PageChange } from "../cluster/signals.ts";

/** What a cached read depends on: its page, its site (site-level reads), or any page of its site. */
export interface ReadScope {
  siteId: string;
  /** null for a site-level read; ANY_PAGE for a read over many of the site's pages. */
  pageSlug: string | null;
}

/** The page slug of a read over many pages of a site (page counts): every page's change drops it. No slug contains NUL. */
export const ANY_PAGE = "\u0000any-page";

export class CachedRead {
  constructor(
    readonly key: string,
    readonly scope: ReadScope,
    /** The body as an object, for overlays (personalized reads) that derive from it. */
    readonly value: unknown,
    readonly expiresAt: number,
    /** The body already serialized (the same value as another entry's), if it is. */
    private bytes: Buffer | null = null,
  ) {}

  /**
   * The serialized JSON body, written as is. Serialized on first use: a read the cache does not
   * keep, and whose body an overlay replaces (a personalized miss), is never serialized.
   */
  get body(): Buffer {
    return (this.bytes ??= Buffer.from(JSON.stringify(this.value)));
  }

  get contentLength(): string {
    return String(this.body.length);
  }
}

/**
 * A read's view of the scope's changes when it started: it may store its result only if no
 * change came in meanwhile, or a result computed from data older than the change would outlive it.
 */
export interface Generation {
  readonly site: number;
  readonly page: number;
  readonly siteCount: number;
  readonly pageCount: number;
}

const SITE_LEVEL = "\u0000site";
/** Change counters are kept per hash slot, so their memory is fixed; a collision only makes a store be skipped. */
const SLOTS = 4096;

const slot = (text: string): number => {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0) % SLOTS;
};

export const nextWholeMinute = (now: number): number => (Math.floor(now / 60_000) + 1) * 60_000;

export class ReadCache {
  /** Insertion order is recency order: a hit moves its entry to the end. */
  private readonly entries = new Map<string, CachedRead>();
  /** siteId → page slug (or SITE_LEVEL) → keys of that scope's entries. */
  private readonly scopes = new Map<string, Map<string, Set<string>>>();
  private readonly siteChanges = new Uint32Array(SLOTS);
  private readonly pageChanges = new Uint32Array(SLOTS);
  private bytes = 0;

  constructor(
    private readonly limits: { maxEntries: number; maxBytes: number },
    signals: ClusterSignals,
    private readonly now: () => number = Date.now,
  ) {
    // For the life of the signals (closed with the service).
    signals.onPageChanged((change) => this.drop(change));
  }

  /** False with max_entries 0: nothing is kept. */
  get enabled(): boolean {
    return this.limits.maxEntries > 0;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  get(key: string): CachedRead | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) {
      this.unindex(entry);
      return undefined;
    }
    this.entries.set(key, entry);
    return entry;
  }

  generation(scope: ReadScope): Generation {
    const s = slot(scope.siteId);
    const p = slot(`${scope.siteId}\u0000${scope.pageSlug ?? SITE_LEVEL}`);
    return { site: s, page: p, siteCount: this.siteChanges[s]!, pageCount: this.pageChanges[p]! };
  }

  unchangedSince(since: Generation): boolean {
    return this.siteChanges[since.site] === since.siteCount && this.pageChanges[since.page] === since.pageCount;
  }

  /** Stores a body unless its scope changed since `since` (then the body may be stale); returns the entry either way. */
  set(key: string, scope: ReadScope, value: unknown, since: Generation, serialized: Buffer | null = null): CachedRead {
    const entry = new CachedRead(key, scope, value, nextWholeMinute(this.now()), serialized);
    if (!this.enabled || !this.unchangedSince(since) || entry.body.length > this.limits.maxBytes) return entry;
    const old = this.entries.get(key);
    if (old) this.remove(old);
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
    let keys = this.scopes.get(scope.siteId);
    if (!keys) this.scopes.set(scope.siteId, (keys = new Map()));
    const pageKey = scope.pageSlug ?? SITE_LEVEL;
    let set = keys.get(pageKey);
    if (!set) keys.set(pageKey, (set = new Set()));
    set.add(key);
    for (const oldest of this.entries.values()) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.remove(oldest);
    }
    return entry;
  }

  /** Drops what a change makes stale: a page's entries, or with pageSlug null every entry of the site. */
  drop(change: PageChange): void {
    if (change.pageSlug === null) this.siteChanges[slot(change.siteId)]!++;
    else {
      this.pageChanges[slot(`${change.siteId}\u0000${change.pageSlug}`)]!++;
      this.pageChanges[slot(`${change.siteId}\u0000${ANY_PAGE}`)]!++;
    }
    const keys = this.scopes.get(change.siteId);
    if (!keys) return;
    const sets =
      change.pageSlug === null
        ? [...keys.values()]
        : [keys.get(change.pageSlug), keys.get(ANY_PAGE)].filter((s) => s !== undefined);
    for (const set of sets) for (const key of [...set]) this.remove(this.entries.get(key)!);
  }

  private remove(entry: CachedRead): void {
    this.entries.delete(entry.key);
    this.unindex(entry);
  }

  private unindex(entry: CachedRead): void {
    this.bytes -= entry.body.length;
    const keys = this.scopes.get(entry.scope.siteId);
    const pageKey = entry.scope.pageSlug ?? SITE_LEVEL;
    const set = keys?.get(pageKey);
    set?.delete(entry.key);
    if (set?.size === 0) keys!.delete(pageKey);
    if (keys?.size === 0) this.scopes.delete(entry.scope.siteId);
  }
}
