import { createHash } from 'node:crypto';
import { AwsError } from './wire.ts';

/** Kinesis hash keys: the MD5 of the partition key read as an unsigned 128-bit integer. */
const HASH_SPACE = 2n ** 128n;

/** Shard `index`'s hash key range among `count` shards, as CreateStream splits the space: evenly, the rest to the last. */
export function hashKeyRange(index: number, count: number): { start: bigint; end: bigint } {
  const size = HASH_SPACE / BigInt(count);
  const start = size * BigInt(index);
  return { start, end: index === count - 1 ? HASH_SPACE - 1n : start + size - 1n };
}

/** The shard a record goes to: by the MD5 of its partition key, or by its `ExplicitHashKey`. */
export function shardFor(partitionKey: string, explicitHashKey: string | undefined, count: number): number {
  let hash: bigint;
  if (explicitHashKey !== undefined) {
    if (!/^\d{1,39}$/.test(explicitHashKey) || BigInt(explicitHashKey) >= HASH_SPACE)
      throw new AwsError(
        400,
        'InvalidArgumentException',
        `Invalid ExplicitHashKey. ExplicitHashKey must be in the range: [0, 2^128-1]. Specified value was ${explicitHashKey}`,
      );
    hash = BigInt(explicitHashKey);
  } else hash = BigInt(`0x${createHash('md5').update(partitionKey, 'utf8').digest('hex')}`);
  const index = Number(hash / (HASH_SPACE / BigInt(count)));
  return Math.min(index, count - 1);
}

export const shardId = (index: number) => `shardId-${String(index).padStart(12, '0')}`;

export function shardIndex(id: string, count: number): number | undefined {
  const match = /^shardId-(\d{12})$/.exec(id);
  const index = match ? Number(match[1]) : -1;
  return index >= 0 && index < count ? index : undefined;
}

/**
 * Sequence numbers as Kinesis writes them: 56 decimal digits, increasing within a shard. Here the shard's index and
 * its record counter, so a number names its record.
 */
export function sequenceNumber(shard: number, seq: number): string {
  return `4${String(shard).padStart(4, '0')}${String(seq).padStart(51, '0')}`;
}

export function parseSequenceNumber(text: string): { shard: number; seq: number } {
  if (!/^4\d{55}$/.test(text))
    throw new AwsError(
      400,
      'InvalidArgumentException',
      `StartingSequenceNumber ${text} used in GetShardIterator on shard is not a valid sequence number.`,
    );
  return { shard: Number(text.slice(1, 5)), seq: Number(text.slice(5)) };
}

/** An iterator's position: the next record to read in a shard of a stream, and when it was issued. */
export interface IteratorPosition {
  stream: string;
  shard: number;
  /** The next sequence counter to read (records from it on). */
  next: number;
  issuedAt: number;
}

/** Shard iterators expire 5 minutes after they are issued, as on AWS. */
export const ITERATOR_LIFETIME_MS = 300_000;

export function encodeIterator(position: IteratorPosition): string {
  return Buffer.from(JSON.stringify([position.stream, position.shard, position.next, position.issuedAt])).toString(
    'base64',
  );
}

export function decodeIterator(iterator: string, now: number): IteratorPosition {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(iterator, 'base64').toString('utf8'));
  } catch {}
  if (
    !Array.isArray(parts) ||
    parts.length !== 4 ||
    typeof parts[0] !== 'string' ||
    !parts.slice(1).every((n) => Number.isInteger(n))
  )
    throw new AwsError(400, 'InvalidArgumentException', 'Invalid ShardIterator.');
  const [stream, shard, next, issuedAt] = parts as [string, number, number, number];
  if (now - issuedAt > ITERATOR_LIFETIME_MS)
    throw new AwsError(
      400,
      'ExpiredIteratorException',
      `Iterator expired. The iterator was created at time ${new Date(issuedAt).toUTCString()} while right now it is ${new Date(now).toUTCString()} which is further in the future than the tolerated delay of ${ITERATOR_LIFETIME_MS} milliseconds.`,
    );
  return { stream, shard, next, issuedAt };
}
