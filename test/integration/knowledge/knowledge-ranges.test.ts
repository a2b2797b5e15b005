import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningQueuesAndBuckets, startQueuesAndBuckets } from '#test/support/queues-and-buckets.ts';
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';

/**
 * What segments read by range and merges that stream need of the bucket, against the local S3 stand-in: ranged GETs
 * (exact bytes, clamped at the end), suffix reads (the object's tail and its size, a suffix longer than the object
 * giving all of it as S3 does), and streamed uploads (several parts, one PUT when small, nothing left on a failure).
 */
let stand: RunningQueuesAndBuckets;
let store: S3ObjectStore;

beforeAll(async () => {
  stand = await startQueuesAndBuckets('sb-knowledge-ranges');
  store = new S3ObjectStore(stand.s3, stand.aws.bucketNames.knowledge);
});
afterAll(async () => {
  await stand?.stop();
});

function bytesOf(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed) % 251;
  return out;
}

async function* chunksOf(bytes: Uint8Array, size: number, failAt?: number) {
  for (let at = 0; at < bytes.length; at += size) {
    if (failAt !== undefined && at >= failAt) throw new Error('the writer failed');
    yield bytes.subarray(at, at + size);
  }
}

describe('knowledge segments in the local S3 stand-in', () => {
  it('ranged reads return exactly the bytes asked for, clamped at the end of the object', async () => {
    const bytes = bytesOf(300_000);
    await store.put('bots/b/segments/r.sbks', bytes, 'application/octet-stream');
    expect(await store.getRange('bots/b/segments/r.sbks', 1000, 1010)).toEqual(bytes.subarray(1000, 1010));
    expect(await store.getRange('bots/b/segments/r.sbks', 299_990, 400_000)).toEqual(bytes.subarray(299_990));
    expect(await store.getRange('bots/b/segments/r.sbks', 5, 5)).toEqual(new Uint8Array(0));
    const tail = await store.getTail('bots/b/segments/r.sbks', 4096);
    expect(tail.size).toBe(300_000);
    expect(tail.bytes).toEqual(bytes.subarray(300_000 - 4096));
    // A suffix longer than the object: the whole object (S3's answer; the stand-in's 416 is worked around).
    const small = bytesOf(100);
    await store.put('bots/b/segments/s.sbks', small, 'application/octet-stream');
    expect(await store.getTail('bots/b/segments/s.sbks', 4096)).toEqual({ bytes: small, size: 100 });
  });

  it('after a restart (bodies on disk) a ranged read still returns exactly its bytes, read from the file', async () => {
    const bytes = bytesOf(2_000_000, 11);
    await store.put('bots/b/segments/disk.sbks', bytes, 'application/octet-stream');
    await stand.restart();
    store = new S3ObjectStore(stand.s3, stand.aws.bucketNames.knowledge);
    expect(await store.getRange('bots/b/segments/disk.sbks', 1_500_000, 1_500_100)).toEqual(
      bytes.subarray(1_500_000, 1_500_100),
    );
    expect(await store.getRange('bots/b/segments/disk.sbks', 1_999_990, 3_000_000)).toEqual(bytes.subarray(1_999_990));
    expect(await store.getTail('bots/b/segments/disk.sbks', 1000)).toEqual({
      bytes: bytes.subarray(2_000_000 - 1000),
      size: 2_000_000,
    });
    expect(await store.getTail('bots/b/segments/disk.sbks', 5_000_000)).toEqual({ bytes, size: 2_000_000 });
  });

  it('a streamed upload of several parts is stored whole; a small one is a single object', async () => {
    const big = bytesOf(19 * 1024 * 1024 + 123, 7);
    expect(await store.putStream('bots/b/segments/big.sbks', chunksOf(big, 700_000), 'application/octet-stream')).toBe(
      big.length,
    );
    expect(Buffer.compare(Buffer.from(await store.get('bots/b/segments/big.sbks')), Buffer.from(big))).toBe(0);
    // One chunk larger than a part (a batch's segment built in memory) goes in parts too: the stand-in caps a request.
    const whole = bytesOf(40 * 1024 * 1024, 5);
    await store.putStream('bots/b/segments/whole.sbks', [whole], 'application/octet-stream');
    expect(Buffer.compare(Buffer.from(await store.get('bots/b/segments/whole.sbks')), Buffer.from(whole))).toBe(0);
    const small = bytesOf(5000, 3);
    await store.putStream('bots/b/segments/small.sbks', chunksOf(small, 1000), 'application/octet-stream');
    expect(await store.get('bots/b/segments/small.sbks')).toEqual(small);
  });

  it('a stream that fails stores nothing', async () => {
    const big = bytesOf(12 * 1024 * 1024, 9);
    await expect(
      store.putStream('bots/b/segments/broken.sbks', chunksOf(big, 1 << 20, 9 << 20), 'application/octet-stream'),
    ).rejects.toThrow('the writer failed');
    await expect(store.get('bots/b/segments/broken.sbks')).rejects.toThrow();
  });
});
