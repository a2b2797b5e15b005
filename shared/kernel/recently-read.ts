/**
 * What a function instance read a moment ago, kept for `ttlMs`: a burst of requests for one key costs one read per
 * `ttlMs`, not one each. Concurrent requests for a key share one read; a read that finds nothing, or fails, is not
 * kept (the next request asks again, so something created a moment later is found at once); at most `maxEntries`
 * keys, the one read longest ago dropped first. For values a caller may trust for that long; each caller says why.
 */
export interface RecentlyRead<V> {
  /** The value read within the last `ttlMs`, else what `read` gives now (kept when it is not undefined). */
  get(key: string, read: () => Promise<V | undefined>): Promise<V | undefined>;
  /** Drops a key at once (it changed here). */
  forget(key: string): void;
}

export function recentlyRead<V>(options: { ttlMs: number; maxEntries?: number; now?: () => number }): RecentlyRead<V> {
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const kept = new Map<string, { value: Promise<V | undefined>; until: number }>();
  return {
    get(key, read) {
      const hit = kept.get(key);
      if (hit && hit.until > now()) return hit.value;
      kept.delete(key); // re-inserted last: the Map's order is the order keys were read in
      const entry = { value: read(), until: now() + options.ttlMs };
      kept.set(key, entry);
      const drop = () => void (kept.get(key) === entry && kept.delete(key));
      entry.value.then((found) => void (found === undefined ? drop() : undefined), drop);
      while (kept.size > maxEntries) kept.delete(kept.keys().next().value!);
      return entry.value;
    },
    forget(key) {
      kept.delete(key);
    },
  };
}
