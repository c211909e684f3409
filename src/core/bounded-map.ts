// A map kept to a size by dropping its oldest entry: the memo caches of hot paths (route
// matches, read bodies, prepared statements) hold what recent requests repeat, never all.

/** Sets `key` in `map`, first dropping the earliest-stored entry when `map` holds `max`. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
