import type { KnowledgeObjectStore } from '#shared/knowledge/index.ts';

/** A knowledge object store that counts its reads and the bytes they returned (what a query costs on S3). */
export function countingObjects(store: KnowledgeObjectStore): KnowledgeObjectStore & {
  reads: { requests: number; bytes: number };
} {
  const reads = { requests: 0, bytes: 0 };
  const counted = async <T extends Uint8Array | { bytes: Uint8Array }>(p: Promise<T>): Promise<T> => {
    const out = await p;
    reads.requests++;
    reads.bytes += out instanceof Uint8Array ? out.length : out.bytes.length;
    return out;
  };
  return {
    reads,
    put: (key, bytes, type) => store.put(key, bytes, type),
    putStream: (key, chunks, type) => store.putStream(key, chunks, type),
    get: (key, signal) => counted(store.get(key, signal)),
    getRange: (key, start, end, signal) => counted(store.getRange(key, start, end, signal)),
    getTail: (key, length, signal) => counted(store.getTail(key, length, signal)),
    delete: (keys) => store.delete(keys),
    deletePrefix: (prefix) => store.deletePrefix(prefix),
  };
}
