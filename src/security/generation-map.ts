// A map of per-client state that forgets idle entries at O(1) cost per call, whatever the
// number of distinct keys: entries live in two generations (maps), and starting a new
// generation drops the older one whole, so nothing ever scans or iterates the entries.

export class GenerationMap<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();
  private started = -Infinity;

  /**
   * An entry is kept at least `lifetimeMs` after it was last read or written, unless more than
   * `capacity` keys arrive within one generation: then a new generation starts early, so the map
   * never holds more than 2 × `capacity` entries.
   */
  constructor(
    private readonly lifetimeMs: number,
    private readonly capacity: number,
  ) {}

  get(key: string, now: number): V | undefined {
    this.age(now);
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const old = this.previous.get(key);
    if (old !== undefined) {
      // Moved forward, so a key in use survives the next generation change.
      this.previous.delete(key);
      this.put(key, old, now);
    }
    return old;
  }

  set(key: string, value: V, now: number): void {
    this.age(now);
    this.put(key, value, now);
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  private put(key: string, value: V, now: number): void {
    if (this.current.size >= this.capacity && !this.current.has(key)) this.shift(this.current, now);
    this.current.set(key, value);
  }

  private age(now: number): void {
    if (now - this.started < this.lifetimeMs) return;
    // Untouched for two lifetimes, the current generation is expired as well.
    this.shift(now - this.started < 2 * this.lifetimeMs ? this.current : new Map(), now);
  }

  private shift(previous: Map<string, V>, now: number): void {
    this.previous = previous;
    this.current = new Map();
    this.started = now;
  }
}
