/**
 * Spreading one tenant's hot keys over partitions: a partition key takes 1,000 write units a second on DynamoDB, so
 * a key written on every event or delivery gets a shard suffix chosen from something the writer already knows.
 */

/** Which of `count` shards `text` falls in: FNV-1a, stable across processes and versions (keys depend on it). */
export function shardOf(text: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/** A shard number as a key suffix: two digits, so a partition's name has one length whatever its shard. */
export const shardSuffix = (shard: number) => String(shard).padStart(2, '0');

/** Runs `work` on every item, at most `concurrency` at once; rejects with the first failure once all have settled. */
export async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  if (failure) throw failure.error;
}
